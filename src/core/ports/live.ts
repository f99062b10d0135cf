/** Ports of live delivery: connections, the delivery ledger, `@connections` posts and held pushes. */
import type { Priority } from '../jobs/delivery-job.js';
import type { Notification } from '../model/notification.js';
import type { UserRef } from '../model/user.js';

export interface ConnectionTarget extends UserRef {
  connectionId: string;
}

export interface ConnectionDirectory {
  /** Every live connection of these users (presence items, 100 users per BatchGetItem). */
  connectionsOf(users: readonly UserRef[]): Promise<ConnectionTarget[]>;
  /** The connections subscribed to a celebrity's live posts, page by page. */
  onlineSubscriberPages(tenantId: string, actorId: string): AsyncIterable<ConnectionTarget[]>;
  /** Removes a connection and everything registered for it (idempotent). */
  removeConnection(target: ConnectionTarget): Promise<void>;
}

export interface DeliveryLedger {
  /** Conditional write of (notification, connection) with a TTL: true when this call claimed it first. */
  claim(notificationId: string, connectionId: string): Promise<boolean>;
  /** Deletes a claim whose push failed, so a retry pushes it. */
  release(notificationId: string, connectionId: string): Promise<void>;
}

export type PostOutcome = 'sent' | 'gone';

/** API Gateway `PostToConnection` (the management API, identical locally and on AWS). */
export interface ConnectionPusher {
  post(connectionId: string, payload: string): Promise<PostOutcome>;
}

/** Where a held notification is read back from at release: the user's own inbox, or the tenant's celebrity posts log. */
export type HeldSource = 'own' | 'celebrity';

/**
 * A held live push: a reference, never a copy, so a hold names nobody but its owner (an author's
 * erasure deletes their notifications and the release finds them gone).
 */
export interface HeldPush {
  id: string;
  source: HeldSource;
  priority: Priority;
  /** Consecutive fail-closed holds (unreadable preferences); the push is dropped after FAIL_CLOSED_MAX_HOLDS. */
  failClosedHolds: number;
  /** The producer's event id (for the release stage's trace); absent in holds written before it existed. */
  eventId?: string;
}

/** A hold element as stored: a reference, or (holds written before references) the notification copied whole. */
export type StoredHeldPush = HeldPush | LegacyHeldPush;

export interface LegacyHeldPush {
  notification: Notification;
  priority: Priority;
  failClosedHolds: number;
  eventId?: string;
}

export type HoldOutcome = { status: 'held'; scheduled: boolean } | { status: 'released' };

/** The rate counters and hold items (Idempotency table on AWS and locally). */
export interface LiveHoldStore {
  /** Atomically adds `count` to the user's pushes of the window; the total after. */
  countPushes(user: UserRef, windowStartMs: number, count: number, expiresAtSeconds: number): Promise<number>;
  /** Appends to the user's hold released at `releaseAtMs`, unless that hold was already released. */
  hold(user: UserRef, releaseAtMs: number, pushes: readonly StoredHeldPush[], expiresAtSeconds: number): Promise<HoldOutcome>;
  /** Records that the release schedule exists (saves a CreateSchedule call per further hold). */
  markScheduled(user: UserRef, releaseAtMs: number): Promise<void>;
  /** Marks the hold released (later holds are refused) and returns its pushes; again on a redelivery. */
  release(user: UserRef, releaseAtMs: number): Promise<StoredHeldPush[]>;
}

/** Where delivery code reports a failure it handled (the composition logs it at WARN). */
export type DeliveryErrorReporter = (message: string, error: unknown, context: Record<string, unknown>) => void;

/** One page of a celebrity's online subscribers in one shard, and the connection id the next page starts after. */
export interface SubscriberPage {
  targets: ConnectionTarget[];
  next?: string;
}

export interface ShardedSubscriberDirectory {
  readonly onlineSubscriberShardCount: number;
  /** At most `limit` subscriptions of one shard after `after` (one Query). */
  onlineSubscriberPage(tenantId: string, actorId: string, shard: number, after: string | undefined, limit: number): Promise<SubscriberPage>;
}

/** Once-only steps of a celebrity post's delivery (the split into shard jobs, each next-page job). */
export interface DeliveryStepLedger {
  /** Conditional write: true when this call claimed the step first. */
  claimStep(notificationId: string, step: string): Promise<boolean>;
  /** Deletes a claim whose step failed, so a retry takes it. */
  releaseStep(notificationId: string, step: string): Promise<void>;
}
