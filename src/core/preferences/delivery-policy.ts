/**
 * Whether a live push goes now, waits, or is dropped (the inbox item exists either way):
 * per-type live delivery, quiet hours in the user's zone (fail closed), and the per-user rate limit.
 */
import type { Priority } from '../jobs/delivery-job.js';
import type { PreferencesLookup } from './preferences.js';
import { quietHoursAt } from './quiet-hours.js';
import { UnknownTimeZoneError } from './time-zones.js';

/** When preferences cannot be read, a push is held this long and then evaluated again. */
export const FAIL_CLOSED_RETRY_MS = 15 * 60_000;
/** After this many fail-closed holds (a day), the push is given up; the inbox still has it. */
export const FAIL_CLOSED_MAX_HOLDS = 96;

export interface LivePushSubject {
  type: string;
  priority: Priority;
  /** From the type's definition: an urgent notification of this type ignores quiet hours. */
  urgentBypassesQuietHours: boolean;
}

export type LiveDecision =
  | { action: 'push' }
  | { action: 'skip'; reason: 'live_delivery_off' | 'muted' }
  | { action: 'hold'; untilMs: number; reason: 'quiet_hours' | 'preferences_unavailable' };

/**
 * The per-user decision for one live push at `nowMs`. Unreadable preferences (read error, corrupt
 * row, a zone the runtime does not know) hold the push for `FAIL_CLOSED_RETRY_MS`: fail closed.
 */
export function decideLiveDelivery(nowMs: number, subject: LivePushSubject, lookup: PreferencesLookup): LiveDecision {
  if (lookup.status === 'unreadable') return { action: 'hold', untilMs: nowMs + FAIL_CLOSED_RETRY_MS, reason: 'preferences_unavailable' };
  const { preferences } = lookup;
  if (preferences.mutedTypes.includes(subject.type)) return { action: 'skip', reason: 'muted' };
  if (preferences.liveDelivery[subject.type] === false) return { action: 'skip', reason: 'live_delivery_off' };
  if (preferences.quietHours === null) return { action: 'push' };
  if (subject.priority === 'urgent' && subject.urgentBypassesQuietHours) return { action: 'push' };
  try {
    const state = quietHoursAt(nowMs, preferences.timeZone, preferences.quietHours);
    return state.quiet ? { action: 'hold', untilMs: state.endsAtMs, reason: 'quiet_hours' } : { action: 'push' };
  } catch (error) {
    if (error instanceof UnknownTimeZoneError) return { action: 'hold', untilMs: nowMs + FAIL_CLOSED_RETRY_MS, reason: 'preferences_unavailable' };
    throw error;
  }
}

export const RATE_LIMIT_WINDOW_MS = 60_000;
/** `RATE_LIMIT_PER_MINUTE` default: live pushes per user per minute before the rest collapse into a digest. */
export const RATE_LIMIT_PER_MINUTE_DEFAULT = 30;

export interface RateLimitWindow {
  startMs: number;
  /** Exclusive; the held digest of the window is pushed at this instant. */
  endMs: number;
}

/** The fixed window (epoch-aligned minutes by default) that contains `nowMs`. */
export function rateLimitWindowAt(nowMs: number, windowMs = RATE_LIMIT_WINDOW_MS): RateLimitWindow {
  const startMs = Math.floor(nowMs / windowMs) * windowMs;
  return { startMs, endMs: startMs + windowMs };
}

/**
 * `pushesInWindow` counts this push too (the counter after its atomic increment). Above `limit` the
 * push joins the window's digest. A limit of 0 or less disables rate limiting.
 */
export function exceedsRateLimit(pushesInWindow: number, limit: number): boolean {
  return limit > 0 && pushesInWindow > limit;
}
