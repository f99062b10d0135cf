/**
 * Live delivery: turns delivery jobs into WebSocket pushes to every connection of the recipients.
 *
 * - Recipient connections are found with one presence lookup for the whole batch (the adapter reads
 *   100 users per BatchGetItem), never a scan.
 * - Effectively once per connection: each (notification, connection) pair is claimed in a ledger
 *   with a conditional write BEFORE the push. A pair already claimed is skipped; a ledger error
 *   means no push (fail closed: the client catches up over REST) and the job is retried.
 * - A failed push (other than 410 Gone) releases its claims and fails the job's record, so the
 *   queue redelivers it; pairs pushed before the failure stay claimed and are not pushed again.
 * - 410 Gone: the connection is removed (presence, connection item, subscriptions).
 */
import { createHash } from 'node:crypto';
import { CONNECTIONS_PER_JOB, type DeliveryJob, type Priority } from './delivery-job.js';
import type { DeliveryJobQueue } from './ports/queues.js';
import { forEachBounded } from './bounded-parallel.js';
import { postOrRemoveStale, pushToConnection } from './connection-push.js';
import { recipientNotificationId } from './fanout-plan.js';
import { encodeLiveMessage, liveNotification, type PendingPush } from './live-messages.js';
import type { UserRef } from './ports/inbox.js';
import type { GateCandidate, GateDecision, LiveDeliveryGate } from './live-gate.js';
import type { TraceEntry, TraceRecorder } from './ports/trace.js';
import type { Notification } from './notification.js';
import type { ConnectionDirectory, ConnectionPusher, ConnectionTarget, DeliveryErrorReporter, DeliveryLedger, DeliveryStepLedger, ShardedSubscriberDirectory, SubscriberPage } from './ports/live.js';

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


export interface LiveDeliveryDeps {
  directory: ConnectionDirectory;
  ledger: DeliveryLedger;
  pusher: ConnectionPusher;
  /** Whether info notifications of this type may be collapsed into a digest (the catalog decides). */
  isDigestible(notificationType: string): boolean;
  /** Connections pushed to at once. */
  parallelism?: number;
  onError?: DeliveryErrorReporter;
  /** Preferences, quiet hours and the per-user rate limit: which (user, notification) pushes go now. */
  gate?: Pick<LiveDeliveryGate, 'admit'> & Partial<Pick<LiveDeliveryGate, 'admitDetailed'>>;
  /** Without it a celebrity job pages every online subscriber in one invocation. */
  celebrityJobs?: CelebrityJobSettings;
  /** The delivery trace (never throws: the composition wraps it): the gate's and the push's outcome per recipient. */
  trace?: TraceRecorder;
}

/** What the pushes of one batch did per (notification, connection), for the trace. */
interface PushObservation {
  claimed: Map<string, boolean>;
  failed: Set<string>;
}

const pairKey = (notificationId: string, connectionId: string) => `${notificationId}\u0000${connectionId}`;

const userKey = (user: UserRef) => `${user.tenantId}\u0000${user.userId}`;

export class LiveDelivery {
  private readonly parallelism: number;
  private readonly onError: DeliveryErrorReporter;

  constructor(private readonly deps: LiveDeliveryDeps) {
    this.parallelism = deps.parallelism ?? 16;
    this.onError = deps.onError ?? (() => undefined);
  }

  /**
   * Delivers one queue batch. `urgent`: every notification is its own message. `info`: per
   * connection, several digestible notifications of the batch collapse into one digest.
   */
  async deliver(inputs: readonly DeliveryInput[], mode: Priority): Promise<DeliveryReport> {
    const report: DeliveryReport = { failedRecordIds: new Set(), messagesSent: 0, duplicatesSkipped: 0, goneConnections: 0 };
    const retractions = inputs.filter((input) => input.job.retracted !== undefined);
    const notifications = inputs.filter((input) => input.job.retracted === undefined);
    const recipientInputs = notifications.filter((input) => input.job.target.kind === 'recipients');
    const celebrityInputs = notifications.filter((input) => input.job.target.kind === 'onlineFollowers');
    await Promise.all([this.deliverToRecipients(recipientInputs, mode, report), this.deliverToOnlineFollowers(celebrityInputs, mode, report), this.deliverRetractions(retractions, report)]);
    return report;
  }

  /**
   * Retraction jobs: `retracted` with the user's ids of the withdrawn event to every connection of
   * the target (direct recipients; a celebrity's online followers page by page, sharded and paged
   * like a post when celebrity jobs are set). No gate (a withdrawal is never held) and no ledger
   * claim (the original's claims share its ids; a repeated `retracted` is harmless on the device).
   */
  private async deliverRetractions(inputs: readonly DeliveryInput[], report: DeliveryReport): Promise<void> {
    if (inputs.length === 0) return;
    const users = new Map<string, UserRef>();
    for (const { job } of inputs) {
      if (job.target.kind === 'recipients') for (const { userId } of job.target.recipients) users.set(userKey({ tenantId: job.tenantId, userId }), { tenantId: job.tenantId, userId });
    }
    let connections: ConnectionTarget[] = [];
    try {
      if (users.size > 0) connections = await this.deps.directory.connectionsOf([...users.values()]);
    } catch (error) {
      this.onError('connection lookup failed', error, { records: inputs.length });
      for (const input of inputs) if (input.job.target.kind === 'recipients') report.failedRecordIds.add(input.recordId);
      connections = [];
    }
    const posts: { recordId: string; target: ConnectionTarget; ids: string[] }[] = [];
    for (const { recordId, job } of inputs) {
      if (job.target.kind !== 'recipients' || report.failedRecordIds.has(recordId)) continue;
      const ids = new Map(job.target.recipients.map((recipient) => [recipient.userId, recipient.notificationId]));
      for (const target of connections) if (target.tenantId === job.tenantId && ids.has(target.userId)) posts.push({ recordId, target, ids: [ids.get(target.userId)!] });
    }
    await forEachBounded(posts, this.parallelism, (post) => this.postRetracted(post, report));
    for (const input of inputs) if (input.job.target.kind === 'onlineFollowers') await this.retractFromOnlineFollowers(input, report);
  }

  /** One shard page (or, without celebrity jobs, every page) of a celebrity's online followers. */
  private async retractFromOnlineFollowers(input: DeliveryInput, report: DeliveryReport): Promise<void> {
    const { recordId, job } = input;
    if (job.target.kind !== 'onlineFollowers' || !job.retracted) return;
    const target = job.target;
    const { eventId, arrivalMs } = job.retracted;
    const idsOf = (connection: ConnectionTarget) => [target.notificationId, recipientNotificationId(job.tenantId, job.notification.type, eventId, connection.userId, arrivalMs)];
    const push = (page: readonly ConnectionTarget[]) => forEachBounded(page, this.parallelism, (connection) => this.postRetracted({ recordId, target: connection, ids: idsOf(connection) }, report));
    const celebrityJobs = this.deps.celebrityJobs;
    try {
      if (!celebrityJobs) {
        for await (const page of this.deps.directory.onlineSubscriberPages(job.tenantId, target.actorId)) await push(page);
        return;
      }
      // Step names of their own: the post's split and page steps share the feed id.
      if (target.shard === undefined) {
        const shardJobs = Array.from({ length: celebrityJobs.subscribers.onlineSubscriberShardCount }, (_, shard): DeliveryJob => ({ ...job, target: { ...target, shard, hop: 0 } }));
        await this.onceThenEnqueue(celebrityJobs, recordId, target.notificationId, 'Rsplit', shardJobs, report);
        return;
      }
      const page = await this.readSubscriberPage(celebrityJobs, input, target.shard, report);
      if (page === undefined) return;
      const hop = target.hop ?? 0;
      if (page.next !== undefined) {
        const nextJob: DeliveryJob = { ...job, target: { ...target, after: page.next, hop: hop + 1 } };
        if (!(await this.onceThenEnqueue(celebrityJobs, recordId, target.notificationId, `RS${target.shard}H${hop + 1}`, [nextJob], report))) return;
      }
      await push(page.targets);
    } catch (error) {
      this.onError('online subscriber paging failed', error, { recordId, actorId: target.actorId });
      report.failedRecordIds.add(recordId);
    }
  }

  /** A failed post fails its record (the queue redelivers the job); 410 removes the connection. */
  private async postRetracted({ recordId, target, ids }: { recordId: string; target: ConnectionTarget; ids: string[] }, report: DeliveryReport): Promise<void> {
    try {
      const outcome = await postOrRemoveStale(this.deps, target, encodeLiveMessage({ type: 'retracted', ids }));
      if (outcome === 'gone') report.goneConnections += 1;
      else report.messagesSent += 1;
    } catch (error) {
      this.onError('retracted push failed', error, { recordId, connectionId: target.connectionId });
      report.failedRecordIds.add(recordId);
    }
  }

  private async deliverToRecipients(inputs: readonly DeliveryInput[], mode: Priority, report: DeliveryReport): Promise<void> {
    if (inputs.length === 0) return;
    const users = new Map<string, UserRef>();
    for (const { job } of inputs) {
      if (job.target.kind !== 'recipients') continue;
      for (const recipient of job.target.recipients) users.set(userKey({ tenantId: job.tenantId, userId: recipient.userId }), { tenantId: job.tenantId, userId: recipient.userId });
    }
    let connections: ConnectionTarget[];
    try {
      connections = await this.deps.directory.connectionsOf([...users.values()]);
    } catch (error) {
      this.onError('connection lookup failed', error, { records: inputs.length });
      for (const input of inputs) report.failedRecordIds.add(input.recordId);
      return;
    }
    const connectionsByUser = new Map<string, ConnectionTarget[]>();
    for (const connection of connections) {
      const key = userKey(connection);
      connectionsByUser.set(key, [...(connectionsByUser.get(key) ?? []), connection]);
    }
    const gateTrace: TraceEntry[] = [];
    const admitted = await this.admitRecipients(inputs, connectionsByUser, report, gateTrace);
    await this.deps.trace?.record(gateTrace);
    const observed: PushObservation = { claimed: new Map(), failed: new Set() };
    const queues = new Map<string, { target: ConnectionTarget; pushes: PendingPush<string>[] }>();
    for (const { recordId, job } of inputs) {
      if (job.target.kind !== 'recipients') continue;
      const digestible = mode === 'info' && this.deps.isDigestible(job.notification.type);
      for (const recipient of job.target.recipients) {
        if (!admitted.has(`${recordId}\u0000${recipient.userId}`)) continue;
        const notification = liveNotification(recipient.notificationId, job.notification);
        for (const target of connectionsByUser.get(userKey({ tenantId: job.tenantId, userId: recipient.userId })) ?? []) {
          const queue = queues.get(target.connectionId) ?? { target, pushes: [] };
          queue.pushes.push({ notification, digestible, tag: recordId });
          queues.set(target.connectionId, queue);
        }
      }
    }
    await forEachBounded(queues.values(), this.parallelism, ({ target, pushes }) => this.pushToConnection(target, pushes, report, observed));
    if (this.deps.trace) await this.deps.trace.record(this.deliveryTrace(inputs, connectionsByUser, admitted, observed));
  }

  /** The delivery stage's record per recipient: offline, delivered live, deduplicated or failed (retried). */
  private deliveryTrace(inputs: readonly DeliveryInput[], connectionsByUser: ReadonlyMap<string, ConnectionTarget[]>, admitted: ReadonlySet<string>, observed: PushObservation): TraceEntry[] {
    const entries: TraceEntry[] = [];
    const atMs = Date.now();
    for (const { recordId, job } of inputs) {
      if (job.target.kind !== 'recipients') continue;
      const eventTimeMs = Date.parse(job.notification.createdAt);
      for (const recipient of job.target.recipients) {
        const base = { tenantId: job.tenantId, eventId: job.eventId, userId: recipient.userId, notificationId: recipient.notificationId, stage: 'delivery' as const, atMs };
        const connections = connectionsByUser.get(userKey({ tenantId: job.tenantId, userId: recipient.userId })) ?? [];
        if (connections.length === 0) {
          entries.push({ ...base, outcome: 'offline', detail: 'no open connection: the inbox has it' });
          continue;
        }
        if (!admitted.has(`${recordId}\u0000${recipient.userId}`)) continue;
        entries.push({ ...base, ...pushOutcome(recipient.notificationId, connections, observed), ...(Number.isFinite(eventTimeMs) ? { eventTimeMs } : {}) });
      }
    }
    return entries;
  }

  /**
   * `recordId + userId` of every online recipient the gate lets through now (all of them without a
   * gate). A gate failure fails those records (nothing was pushed; the queue redelivers them).
   */
  private async admitRecipients(inputs: readonly DeliveryInput[], connectionsByUser: ReadonlyMap<string, ConnectionTarget[]>, report: DeliveryReport, trace: TraceEntry[]): Promise<Set<string>> {
    const pairs: { key: string; recordId: string; candidate: GateCandidate }[] = [];
    const eventIds = new Map<string, string>();
    for (const { recordId, job } of inputs) {
      if (job.target.kind !== 'recipients') continue;
      for (const recipient of job.target.recipients) {
        const user = { tenantId: job.tenantId, userId: recipient.userId };
        if (!connectionsByUser.has(userKey(user))) continue;
        pairs.push({ key: `${recordId}\u0000${recipient.userId}`, recordId, candidate: { ...user, notification: liveNotification(recipient.notificationId, job.notification), priority: job.priority, eventId: job.eventId } });
        eventIds.set(recordId, job.eventId);
      }
    }
    if (!this.deps.gate || pairs.length === 0) return new Set(pairs.map((pair) => pair.key));
    try {
      const decisions = await this.decide(pairs.map((pair) => pair.candidate));
      const atMs = Date.now();
      pairs.forEach((pair, index) => trace.push(gateEntry(pair.candidate, eventIds.get(pair.recordId) ?? '', decisions[index]!, atMs)));
      return new Set(pairs.filter((_, index) => decisions[index]!.verdict === 'push').map((pair) => pair.key));
    } catch (error) {
      this.onError('live gate failed', error, { records: inputs.length });
      for (const pair of pairs) report.failedRecordIds.add(pair.recordId);
      return new Set();
    }
  }

  /** The connections of a celebrity-feed page whose users the gate lets through now. */
  private async admitFollowers(page: readonly ConnectionTarget[], job: DeliveryJob, notification: Notification): Promise<ConnectionTarget[]> {
    if (!this.deps.gate || page.length === 0) return [...page];
    const users = [...new Map(page.map((target) => [userKey(target), { tenantId: target.tenantId, userId: target.userId }])).values()];
    const decisions = await this.decide(users.map((user) => ({ ...user, notification, priority: job.priority, eventId: job.eventId })));
    const atMs = Date.now();
    await this.deps.trace?.record(users.map((user, index) => gateEntry({ ...user, notification, priority: job.priority }, job.eventId, decisions[index]!, atMs)));
    const admitted = new Set(users.filter((_, index) => decisions[index]!.verdict === 'push').map(userKey));
    return page.filter((target) => admitted.has(userKey(target)));
  }

  /** The gate's decisions with reasons (a gate without `admitDetailed`, e.g. a test fake, gives none). */
  private async decide(candidates: readonly GateCandidate[]): Promise<GateDecision[]> {
    const gate = this.deps.gate!;
    if (gate.admitDetailed) return gate.admitDetailed(candidates);
    return (await gate.admit(candidates)).map((verdict) => ({ verdict }));
  }

  private async deliverToOnlineFollowers(inputs: readonly DeliveryInput[], mode: Priority, report: DeliveryReport): Promise<void> {
    const celebrityJobs = this.deps.celebrityJobs;
    if (!celebrityJobs) return this.deliverToAllOnlineFollowers(inputs, mode, report);
    // An invocation handles at most CONNECTIONS_PER_JOB connections: page jobs run one after another
    // while their pages fit that budget (empty or small shards all run here); a page that would exceed
    // it goes back on the queue unread-through (its Query is the only cost), as do the jobs after it.
    const budget = celebrityJobs.connectionsPerJob ?? CONNECTIONS_PER_JOB;
    let handled = 0;
    const putBack: DeliveryInput[] = [];
    for (const input of inputs) {
      const target = input.job.target;
      if (target.kind !== 'onlineFollowers') continue;
      if (target.shard === undefined) await this.splitByShard(celebrityJobs, input, report);
      else if (putBack.length > 0) putBack.push(input);
      else {
        const page = await this.readSubscriberPage(celebrityJobs, input, target.shard, report);
        if (page === undefined) continue;
        if (handled > 0 && handled + page.targets.length > budget) {
          putBack.push(input);
          continue;
        }
        handled += page.targets.length;
        await this.deliverSubscriberPage(celebrityJobs, input, target.shard, page, mode, report);
      }
    }
    if (putBack.length === 0) return;
    try {
      await celebrityJobs.queue.enqueue(putBack.map((input) => input.job));
    } catch (error) {
      this.onError('put-back of celebrity page jobs failed', error, { records: putBack.length });
      for (const input of putBack) report.failedRecordIds.add(input.recordId);
    }
  }

  /** A post's root job becomes one job per subscriber shard, once (a retry finds the step claimed). */
  private async splitByShard(celebrityJobs: CelebrityJobSettings, { recordId, job }: DeliveryInput, report: DeliveryReport): Promise<void> {
    if (job.target.kind !== 'onlineFollowers') return;
    const target = job.target;
    const shardJobs = Array.from({ length: celebrityJobs.subscribers.onlineSubscriberShardCount }, (_, shard): DeliveryJob => ({ ...job, target: { ...target, shard, hop: 0 } }));
    await this.onceThenEnqueue(celebrityJobs, recordId, target.notificationId, 'split', shardJobs, report);
  }

  /**
   * One page of one shard: the next page's job is enqueued first (so pages proceed in parallel),
   * then the page's connections are pushed through the ledger. A retry re-reads the same page,
   * skips the next-page job already enqueued, and pushes only connections not yet claimed.
   */
  /** One page of one shard's subscribers (always the job's full page size, so a retry reads the same page); undefined when the read failed (the record is failed). */
  private async readSubscriberPage(celebrityJobs: CelebrityJobSettings, { recordId, job }: DeliveryInput, shard: number, report: DeliveryReport): Promise<SubscriberPage | undefined> {
    if (job.target.kind !== 'onlineFollowers') return undefined;
    const target = job.target;
    try {
      return await celebrityJobs.subscribers.onlineSubscriberPage(job.tenantId, target.actorId, shard, target.after, celebrityJobs.connectionsPerJob ?? CONNECTIONS_PER_JOB);
    } catch (error) {
      this.onError('online subscriber page failed', error, { recordId, actorId: target.actorId, shard });
      report.failedRecordIds.add(recordId);
      return undefined;
    }
  }

  private async deliverSubscriberPage(celebrityJobs: CelebrityJobSettings, { recordId, job }: DeliveryInput, shard: number, page: SubscriberPage, mode: Priority, report: DeliveryReport): Promise<void> {
    if (job.target.kind !== 'onlineFollowers') return;
    const target = job.target;
    const hop = target.hop ?? 0;
    if (page.next !== undefined) {
      const nextJob: DeliveryJob = { ...job, target: { ...target, shard, after: page.next, hop: hop + 1 } };
      const enqueued = await this.onceThenEnqueue(celebrityJobs, recordId, target.notificationId, `S${shard}H${hop + 1}`, [nextJob], report);
      if (!enqueued) return;
    }
    const notification = liveNotification(target.notificationId, job.notification);
    const digestible = mode === 'info' && this.deps.isDigestible(job.notification.type);
    try {
      const admitted = await this.admitFollowers(page.targets, job, notification);
      await forEachBounded(admitted, this.parallelism, (connection) => this.pushToConnection(connection, [{ notification, digestible, tag: recordId }], report));
    } catch (error) {
      this.onError('live gate failed', error, { recordId, actorId: target.actorId, shard });
      report.failedRecordIds.add(recordId);
    }
  }

  /** Claims the step, then enqueues; a failed enqueue releases the claim and fails the record. False when it failed. */
  private async onceThenEnqueue(celebrityJobs: CelebrityJobSettings, recordId: string, notificationId: string, step: string, jobs: DeliveryJob[], report: DeliveryReport): Promise<boolean> {
    let claimed = false;
    try {
      claimed = await celebrityJobs.steps.claimStep(notificationId, step);
      if (claimed) await celebrityJobs.queue.enqueue(jobs);
      return true;
    } catch (error) {
      this.onError('celebrity job step failed', error, { recordId, step });
      report.failedRecordIds.add(recordId);
      if (claimed) await celebrityJobs.steps.releaseStep(notificationId, step).catch((releaseError: unknown) => this.onError('step release failed', releaseError, { recordId, step }));
      return false;
    }
  }

  /** Without celebrity job settings: every online subscriber of the post, page after page, in this invocation. */
  private async deliverToAllOnlineFollowers(inputs: readonly DeliveryInput[], mode: Priority, report: DeliveryReport): Promise<void> {
    for (const { recordId, job } of inputs) {
      if (job.target.kind !== 'onlineFollowers') continue;
      const notification = liveNotification(job.target.notificationId, job.notification);
      const digestible = mode === 'info' && this.deps.isDigestible(job.notification.type);
      try {
        for await (const subscribers of this.deps.directory.onlineSubscriberPages(job.tenantId, job.target.actorId)) {
          const page = await this.admitFollowers(subscribers, job, notification);
          await forEachBounded(page, this.parallelism, (target) => this.pushToConnection(target, [{ notification, digestible, tag: recordId }], report));
        }
      } catch (error) {
        this.onError('online subscriber paging failed', error, { recordId, actorId: job.target.actorId });
        report.failedRecordIds.add(recordId);
      }
    }
  }

  /** The push routine, its outcome added to the report: a failed push fails (only) its record. */
  private async pushToConnection(target: ConnectionTarget, pushes: readonly PendingPush<string>[], report: DeliveryReport, observed?: PushObservation): Promise<void> {
    const ledger = observed ? observingLedger(this.deps.ledger, observed) : this.deps.ledger;
    const result = await pushToConnection({ ...this.deps, ledger, onError: this.onError }, target, pushes, 'message');
    for (const push of result.failed) observed?.failed.add(pairKey(push.notification.id, target.connectionId));
    report.messagesSent += result.messagesSent;
    report.duplicatesSkipped += result.duplicatesSkipped;
    if (result.gone) report.goneConnections += 1;
    for (const push of result.failed) report.failedRecordIds.add(push.tag);
  }
}

/** The ledger, noting which (notification, connection) pairs this batch claimed first. */
function observingLedger(ledger: DeliveryLedger, observed: PushObservation): DeliveryLedger {
  return {
    async claim(notificationId, connectionId) {
      const claimed = await ledger.claim(notificationId, connectionId);
      observed.claimed.set(pairKey(notificationId, connectionId), claimed);
      return claimed;
    },
    release: (notificationId, connectionId) => ledger.release(notificationId, connectionId),
  };
}

function pushOutcome(notificationId: string, connections: readonly ConnectionTarget[], observed: PushObservation): Pick<TraceEntry, 'outcome' | 'detail'> {
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

function gateEntry(candidate: GateCandidate, eventId: string, decision: GateDecision, atMs: number): TraceEntry {
  const base = { tenantId: candidate.tenantId, userId: candidate.userId, eventId, notificationId: candidate.notification.id, stage: 'gate' as const, atMs };
  if (decision.verdict === 'push' || !decision.reason) return { ...base, outcome: 'admitted', detail: decision.verdict === 'push' ? 'pushed now' : decision.verdict };
  const until = decision.untilMs === undefined ? '' : ` until ${new Date(decision.untilMs).toISOString()}`;
  const detail = { muted: 'muted type: no push', live_delivery_off: 'live delivery off for the type: no push', quiet_hours: `quiet hours: held${until}`, preferences_unavailable: `preferences unreadable: held${until} (fail closed)`, rate_limited: `rate limit reached: held for the digest${until}` }[decision.reason];
  return { ...base, outcome: decision.reason, detail };
}

/**
 * A celebrity's online subscribers are spread over S partitions by connection id, so a connect
 * storm of one celebrity's followers does not hit one partition's write limit.
 */
export const ONLINE_SUBSCRIBER_SHARDS = 8;

export function onlineSubscriberShard(connectionId: string, shardCount = ONLINE_SUBSCRIBER_SHARDS): number {
  return createHash('sha256').update(connectionId).digest().readUInt32BE(0) % shardCount;
}
