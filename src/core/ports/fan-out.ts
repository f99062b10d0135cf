/** Ports of fan-out's own records: the arrival clock and the author's recent posts log; `src/adapters/dynamo/` implements them. */
import type { Priority, RenderedNotification } from '../jobs/delivery-job.js';
import type { Tier } from '../model/tier.js';

/** Identifies one event across retries, duplicate publishes and replays. */
export interface ArrivalKey {
  tenantId: string;
  type: string;
  eventId: string;
}

/** What the arrival clock keeps of an event, first stamp wins (a restamp or a retraction aside). */
export interface ArrivalStamp {
  /** The time part of the event's notification ids: when the fan-out first wrote for it. */
  arrivalMs: number;
  /** When the system accepted the event (its intake record's SentTimestamp): a follow's or unfollow's place in its pair's history. */
  intakeMs: number;
  /** How a post to an account's followers is fanned out (the tier read before its first write), kept so a retry never switches. */
  mode?: Tier;
  /** Stamped by this call (no record, or only an expired one). */
  fresh: boolean;
  /** Its retraction stamped it (before the event arrived, or after): nothing of it is written or pushed any more. */
  retracted: boolean;
}

/** What a fan-out proposes to the clock: its own time, the intake time and the mode. */
export type ArrivalCandidate = Pick<ArrivalStamp, 'arrivalMs' | 'intakeMs' | 'mode'>;

/** Port: the arrival clock, one record per event (conditional writes). */
export interface ArrivalLedger {
  /**
   * The event's arrival stamp: `candidateMs` when this is the first time the event is stamped (or
   * its record expired), otherwise the stamp recorded first. `expiresAtSeconds` is the record's TTL.
   */
  stampArrival(key: ArrivalKey, candidateMs: number, expiresAtSeconds: number): Promise<ArrivalStamp>;
  /** `stampArrival` with the intake time and the fan-out mode beside the stamp: the candidate when first, else what was recorded first. */
  stampEvent(key: ArrivalKey, candidate: ArrivalCandidate, expiresAtSeconds: number): Promise<ArrivalStamp>;
  /**
   * A stamp nothing landed under (an attempt that died before its first write) moves to `candidateMs`,
   * only if it is still `fromMs` and not retracted; otherwise the stored stamp is answered. Intake and mode stay.
   */
  restampArrival(key: ArrivalKey, fromMs: number, candidateMs: number, expiresAtSeconds: number): Promise<ArrivalStamp>;
  /** A retraction's stamp of the event it withdraws: the stamp recorded (or `candidateMs`), marked retracted. */
  stampRetracted(key: ArrivalKey, candidateMs: number, expiresAtSeconds: number): Promise<number>;
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
