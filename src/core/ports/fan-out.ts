/** Ports of fan-out's own records: the arrival clock and the author's recent posts log; `src/adapters/dynamo/` implements them. */
import type { Priority, RenderedNotification } from '../jobs/delivery-job.js';
import type { Tier } from '../model/tier.js';

/** Identifies one event across retries, duplicate publishes and replays. */
export interface ArrivalKey {
  tenantId: string;
  type: string;
  eventId: string;
}

/** What the arrival ledger keeps of an event, first stamp wins. */
export interface ArrivalStamp {
  /** The time part of the event's notification ids: when the fan-out first wrote for it. */
  arrivalMs: number;
  /** When the system accepted the event (its intake record's SentTimestamp): a follow's or unfollow's place in its pair's history. */
  intakeMs: number;
  /** How a post to an account's followers is fanned out (the tier read before its first write), kept so a retry never switches. */
  mode?: Tier;
}

/** Port: the arrival clock, one record per event (conditional put). */
export interface ArrivalLedger {
  /**
   * The event's arrival stamp: `candidateMs` when this is the first time the event is stamped (or
   * its record expired), otherwise the stamp recorded first. `expiresAtSeconds` is the record's TTL.
   */
  stampArrival(key: ArrivalKey, candidateMs: number, expiresAtSeconds: number): Promise<number>;
  /** `stampArrival` with the intake time and the fan-out mode beside the stamp: the candidate when first, else what was recorded first. */
  stampEvent(key: ArrivalKey, candidate: ArrivalStamp, expiresAtSeconds: number): Promise<ArrivalStamp>;
}

/** A post fanned out in the ordinary tier, as the per-author log keeps it for late follows. */
export interface LoggedPost {
  eventId: string;
  type: string;
  priority: Priority;
  arrivalMs: number;
  notification: RenderedNotification;
  expiresAt: number;
}

/** Port: the author's recent inbox-mode posts (TTL), read by a follow to backfill what it raced. */
export interface RecentPostsLog {
  /** One put per post (idempotent: the key is derived from the post's arrival and event). */
  recordPost(tenantId: string, authorId: string, post: LoggedPost): Promise<void>;
  /** The author's logged posts that arrived at or after `fromMs`, unexpired, oldest first. */
  listPostsFrom(tenantId: string, authorId: string, fromMs: number, nowMs: number): Promise<LoggedPost[]>;
}
