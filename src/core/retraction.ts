/**
 * Retraction: a producer withdraws an event (`notification.retracted` with the original event id
 * and type). Cost does not follow the audience: ONE arrival-ledger put (which finds the event's
 * arrival stamp, the time part of all its notification ids) and ONE put of a tenant-level
 * retraction record. Reads recompute each user's ids of the retracted events (own id and the
 * followed feeds' ids, deterministic) and leave them out of pages and counts. Connected devices of
 * the event's direct recipients and a celebrity's online followers get a `retracted` message.
 */
import type { NotificationEvent } from './events.js';
import { feedRecipient, recipientNotificationId } from './fanout-plan.js';
import { notificationId } from './ids.js';
import type { Clock } from './ports/clock.js';
import type { ArrivalLedger } from './ports/fan-out.js';
import type { Retraction, RetractionStore, RetractionsReader } from './ports/inbox.js';
import type { ConnectionDirectory, ConnectionPusher } from './ports/live.js';
import { postOrRemoveStale } from './connection-push.js';
import { encodeLiveMessage } from './live-messages.js';

export interface RetractionDeps {
  arrivals: ArrivalLedger;
  store: RetractionStore;
  clock: Clock;
  inboxTtlDays: number;
  /** Without it devices drop the notification at their next fetch, not live. */
  live?: { directory: Pick<ConnectionDirectory, 'connectionsOf' | 'onlineSubscriberPages' | 'removeConnection'>; pusher: ConnectionPusher };
}

/** What a retraction event's data names: the original event. */
export interface RetractionTarget {
  eventId: string;
  type: string;
}

export class RetractionService {
  constructor(private readonly deps: RetractionDeps) {}

  /** Idempotent: a retry finds the same stamp and rewrites the same record; a retraction that beats its event retracts it on arrival. */
  async retract(event: NotificationEvent, target: RetractionTarget): Promise<Retraction> {
    const nowMs = this.deps.clock.nowMs();
    const expiresAt = Math.ceil(nowMs / 1000) + this.deps.inboxTtlDays * 86_400;
    const arrivalMs = await this.deps.arrivals.stampArrival({ tenantId: event.tenantId, type: target.type, eventId: target.eventId }, nowMs, expiresAt);
    const retraction: Retraction = { tenantId: event.tenantId, type: target.type, eventId: target.eventId, arrivalMs };
    await this.deps.store.recordRetraction(retraction, Math.ceil(arrivalMs / 1000) + this.deps.inboxTtlDays * 86_400);
    await this.pushRetracted(event, retraction);
    return retraction;
  }

  /** Direct recipients (one presence BatchGetItem per 100) and, for a celebrity audience, its online subscribers. */
  private async pushRetracted(event: NotificationEvent, retraction: Retraction): Promise<void> {
    const live = this.deps.live;
    if (!live) return;
    const post = (target: Parameters<typeof postOrRemoveStale>[1], ids: string[]) => postOrRemoveStale(live, target, encodeLiveMessage({ type: 'retracted', ids }));
    if (event.recipients.length > 0) {
      const connections = await live.directory.connectionsOf(event.recipients.map((userId) => ({ tenantId: event.tenantId, userId })));
      await Promise.all(connections.map((connection) => post(connection, [recipientNotificationId(retraction.tenantId, retraction.type, retraction.eventId, connection.userId, retraction.arrivalMs)])));
    }
    if (event.followersOf !== undefined) {
      const feedId = notificationId({ tenantId: retraction.tenantId, type: retraction.type, eventId: retraction.eventId, recipient: feedRecipient(event.followersOf), timeMs: retraction.arrivalMs });
      for await (const page of live.directory.onlineSubscriberPages(event.tenantId, event.followersOf)) {
        await Promise.all(page.map((connection) => post(connection, [feedId, recipientNotificationId(retraction.tenantId, retraction.type, retraction.eventId, connection.userId, retraction.arrivalMs)])));
      }
    }
  }
}

/**
 * The tenant's retractions, cached per container for `ttlMs`: pages and counts of a warm
 * container cost no extra request; a retraction reaches a cold read at once and a warm one within
 * `ttlMs` (connected devices get `retracted` at once).
 */
export class CachedRetractions implements RetractionsReader {
  private readonly entries = new Map<string, { atMs: number; retractions: Promise<Retraction[]> }>();

  constructor(
    private readonly reader: RetractionsReader,
    private readonly ttlMs: number,
    private readonly clock: Clock,
  ) {}

  retractionsOf(tenantId: string, nowMs: number): Promise<Retraction[]> {
    const cached = this.entries.get(tenantId);
    if (cached && this.clock.nowMs() - cached.atMs < this.ttlMs) return cached.retractions;
    const retractions = this.reader.retractionsOf(tenantId, nowMs);
    // A failed read is not cached: the next read tries again.
    retractions.catch(() => this.entries.delete(tenantId));
    this.entries.set(tenantId, { atMs: this.clock.nowMs(), retractions });
    return retractions;
  }
}
