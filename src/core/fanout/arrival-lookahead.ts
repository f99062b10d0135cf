/**
 * The fan-out's arrival stamp, started early: for an event to named recipients only (no follower
 * audience, no follow effect: those stamp their tier or intake order first), the handler starts the
 * stamp's conditional put while Powertools writes the idempotency record and the erasure check runs,
 * and the service takes it instead of making its own: one round trip less on the urgent path.
 *
 * The stamp is the same write a few milliseconds earlier, so nothing the service decides after it
 * changes: a stamp an earlier attempt took is answered as before (and probed and restamped by the
 * service when nothing landed under it), a retraction that came first still wins. An event that was
 * a duplicate, dropped (erased actor, every recipient muted) or failed before the service ran leaves
 * a record with nothing under it, which its TTL removes and a retry restamps; the handler drops the
 * started write (the drop `start` answers).
 */
import type { Clock } from '../ports/clock.js';
import type { ArrivalCandidate, ArrivalKey, ArrivalLedger, ArrivalStamp } from '../ports/fan-out.js';
import type { NotificationType } from '../ports/notification-type.js';
import type { NotificationEvent } from './events.js';
import { expiresAtOf } from './fanout-plan.js';

/** The stamp a fan-out takes for `event` at `nowMs`: its intake is never after its arrival (clocks of two services). */
export function arrivalCandidateOf(event: NotificationEvent, nowMs: number, mode?: ArrivalCandidate['mode']): ArrivalCandidate {
  return { arrivalMs: nowMs, intakeMs: Math.min(event.intakeMs ?? nowMs, nowMs), ...(mode ? { mode } : {}) };
}

export const arrivalKeyOf = (event: NotificationEvent): ArrivalKey => ({ tenantId: event.tenantId, type: event.type, eventId: event.eventId });

/** Whether the service stamps this event with no read before it (so the stamp can start with the idempotency record). */
export function stampsFirst(event: NotificationEvent, type: NotificationType): boolean {
  return type.audience !== 'none' && type.graphEffect === undefined && event.followersOf === undefined && event.recipients.length > 0;
}

const keyOf = (key: ArrivalKey) => JSON.stringify([key.tenantId, key.type, key.eventId]);

export class ArrivalLookahead implements ArrivalLedger {
  private readonly started = new Map<string, Promise<ArrivalStamp>>();

  constructor(
    private readonly ledger: ArrivalLedger,
    private readonly settings: { clock: Clock; inboxTtlDays: number },
  ) {}

  /**
   * Starts the stamp of an event the service will stamp first (others: nothing). Answers the drop of
   * this start, for when the service never takes it (a duplicate, a dropped event, a failure before
   * the stamp): it drops only the stamp this call started, never a concurrent copy's.
   */
  start(event: NotificationEvent, type: NotificationType): () => void {
    if (!stampsFirst(event, type)) return () => undefined;
    const key = arrivalKeyOf(event);
    const id = keyOf(key);
    if (this.started.has(id)) return () => undefined;
    const nowMs = this.settings.clock.nowMs();
    const stamp = this.ledger.stampEvent(key, arrivalCandidateOf(event, nowMs), expiresAtOf(nowMs, this.settings.inboxTtlDays));
    // Handled by whoever takes it; a stamp nobody takes must not be an unhandled rejection.
    stamp.catch(() => undefined);
    this.started.set(id, stamp);
    return () => {
      if (this.started.get(id) === stamp) this.started.delete(id);
    };
  }

  /** The started stamp of this event when there is one (its candidate was taken at `start`), else a new one. */
  stampEvent(key: ArrivalKey, candidate: ArrivalCandidate, expiresAtSeconds: number): Promise<ArrivalStamp> {
    const id = keyOf(key);
    const stamp = this.started.get(id);
    if (!stamp || candidate.mode !== undefined) return this.ledger.stampEvent(key, candidate, expiresAtSeconds);
    this.started.delete(id);
    return stamp;
  }

  stampArrival(key: ArrivalKey, candidateMs: number, expiresAtSeconds: number): Promise<ArrivalStamp> {
    return this.ledger.stampArrival(key, candidateMs, expiresAtSeconds);
  }

  restampArrival(key: ArrivalKey, fromMs: number, candidateMs: number, expiresAtSeconds: number): Promise<ArrivalStamp> {
    return this.ledger.restampArrival(key, fromMs, candidateMs, expiresAtSeconds);
  }

  stampRetracted(key: ArrivalKey, candidateMs: number, expiresAtSeconds: number): Promise<number> {
    return this.ledger.stampRetracted(key, candidateMs, expiresAtSeconds);
  }
}
