/**
 * One batch of delivery jobs as the delivery consumer hands it over, what delivering it reports,
 * and the delivery trace's records of it (the gate's decision and the push's outcome per recipient).
 */
import type { DeliveryJob } from '../jobs/delivery-job.js';
import type { UserRef } from '../model/user.js';
import type { ConnectionTarget, DeliveryLedger, DeliveryStepLedger, ShardedSubscriberDirectory } from '../ports/live.js';
import type { DeliveryJobQueue } from '../ports/queues.js';
import type { TraceEntry } from '../ports/trace.js';
import type { GateCandidate, GateDecision } from './live-gate.js';

/**
 * Bounded celebrity jobs: a post's online audience is split per subscriber shard, each shard job
 * pushes one page and enqueues the next before pushing, so pages run in parallel on the consumers.
 */
export interface CelebrityJobSettings {
  subscribers: ShardedSubscriberDirectory;
  steps: DeliveryStepLedger;
  /** The delivery queues: shard, next-page and put-back jobs go to the queue of their priority. */
  queue: DeliveryJobQueue;
  /** Connections per page job, and the most one invocation handles (page jobs run together while they fit). */
  connectionsPerJob?: number;
}

export interface DeliveryInput {
  /** The queue record the job came from (reported back when the job must be retried). */
  recordId: string;
  job: DeliveryJob;
}

export interface DeliveryReport {
  failedRecordIds: Set<string>;
  /** Messages posted (a digest counts once). */
  messagesSent: number;
  /** (notification, connection) pairs skipped because already delivered. */
  duplicatesSkipped: number;
  goneConnections: number;
}

/** What the pushes of one batch did per (notification, connection), for the trace. */
export interface PushObservation {
  claimed: Map<string, boolean>;
  failed: Set<string>;
}

export const pairKey = (notificationId: string, connectionId: string) => `${notificationId}\u0000${connectionId}`;

export const userKey = (user: UserRef) => `${user.tenantId}\u0000${user.userId}`;

/** The ledger, noting which (notification, connection) pairs this batch claimed first. */
export function observingLedger(ledger: DeliveryLedger, observed: PushObservation): DeliveryLedger {
  return {
    async claim(notificationId, connectionId) {
      const claimed = await ledger.claim(notificationId, connectionId);
      observed.claimed.set(pairKey(notificationId, connectionId), claimed);
      return claimed;
    },
    release: (notificationId, connectionId) => ledger.release(notificationId, connectionId),
  };
}

export function pushOutcome(notificationId: string, connections: readonly ConnectionTarget[], observed: PushObservation): Pick<TraceEntry, 'outcome' | 'detail'> {
  let delivered = 0;
  let duplicates = 0;
  let failed = 0;
  for (const { connectionId } of connections) {
    const key = pairKey(notificationId, connectionId);
    if (observed.failed.has(key)) failed += 1;
    else if (observed.claimed.get(key) === true) delivered += 1;
    else if (observed.claimed.get(key) === false) duplicates += 1;
  }
  const figures = `${delivered} connection(s) pushed, ${duplicates} already had it, ${failed} failed`;
  if (failed > 0) return { outcome: 'push_failed', detail: `${figures}: the queue retries it` };
  if (delivered > 0) return { outcome: 'delivered_live', detail: figures };
  return { outcome: 'deduplicated', detail: figures };
}

export function gateEntry(candidate: GateCandidate, eventId: string, decision: GateDecision, atMs: number): TraceEntry {
  const base = { tenantId: candidate.tenantId, userId: candidate.userId, eventId, notificationId: candidate.notification.id, stage: 'gate' as const, atMs };
  if (decision.verdict === 'push' || !decision.reason) return { ...base, outcome: 'admitted', detail: decision.verdict === 'push' ? 'pushed now' : decision.verdict };
  const until = decision.untilMs === undefined ? '' : ` until ${new Date(decision.untilMs).toISOString()}`;
  const detail = { muted: 'muted type: no push', live_delivery_off: 'live delivery off for the type: no push', quiet_hours: `quiet hours: held${until}`, preferences_unavailable: `preferences unreadable: held${until} (fail closed)`, rate_limited: `rate limit reached: held for the digest${until}` }[decision.reason];
  return { ...base, outcome: decision.reason, detail };
}
