/**
 * The celebrity tier with hysteresis: an account is promoted when its follower count reaches the
 * threshold and demoted only when it falls below DEMOTION_RATIO x threshold, so an account hovering
 * at the line does not flip between write fan-out and feed writes (and re-run promotion passes).
 */
export type Tier = 'ordinary' | 'celebrity';

export const DEFAULT_CELEBRITY_THRESHOLD = 10_000;
const DEMOTION_RATIO = 0.9;

/** Follower count below which a celebrity goes back to write fan-out. */
export function demotionThreshold(threshold: number): number {
  return Math.floor(threshold * DEMOTION_RATIO);
}

export function nextTier(current: Tier, followerCount: number, threshold: number): Tier {
  if (current === 'celebrity') return followerCount < demotionThreshold(threshold) ? 'ordinary' : 'celebrity';
  return followerCount >= threshold ? 'celebrity' : 'ordinary';
}

/** A tier change, applied only while the follower count still calls for it (guards a stale decision). */
export interface TierChange {
  from: Tier;
  to: Tier;
  /** Promotion: the count must be at least this. */
  countAtLeast?: number;
  /** Demotion: the count must be below this. */
  countBelow?: number;
}

/** The guarded change the count calls for, or undefined when the tier stays. */
export function tierChangeFor(profile: { tier: Tier; followerCount: number }, threshold: number): TierChange | undefined {
  const target = nextTier(profile.tier, profile.followerCount, threshold);
  if (target === profile.tier) return undefined;
  return target === 'celebrity'
    ? { from: profile.tier, to: target, countAtLeast: threshold }
    : { from: profile.tier, to: target, countBelow: demotionThreshold(threshold) };
}
