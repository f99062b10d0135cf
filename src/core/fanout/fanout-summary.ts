/** What one event's fan-out did (the follow effects add to it). */
import type { Tier } from '../model/tier.js';

/** What one event did; JSON, stored as the idempotency record's result. */
export interface FanOutSummary {
  inboxItems: number;
  feedItems: number;
  deliveryJobs: number;
  audienceTier?: Tier;
  tierChange?: { from: Tier; to: Tier };
  /** Posts a follow copied into the new follower's inbox (they raced the follow). */
  backfilled?: number;
  /** Users of the event who were erased (tombstone): dropped from it, or the whole event dropped when they were its actor, audience or followee. */
  erasedSkipped?: number;
}
