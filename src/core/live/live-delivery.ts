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
import type { Priority } from '../jobs/delivery-job.js';
import { forEachBounded } from '../model/bounded-parallel.js';
import type { DeliveryJob } from '../jobs/delivery-job.js';
import type { Notification } from '../model/notification.js';
import type { UserRef } from '../model/user.js';
import type { ConnectionDirectory, ConnectionPusher, ConnectionTarget, DeliveryErrorReporter, DeliveryLedger } from '../ports/live.js';
import { erasedAmongUsers, type ErasedSet, type ErasedUsers } from '../ports/erased-users.js';
import type { TraceEntry, TraceRecorder } from '../ports/trace.js';
import type { RetractionsReader } from '../ports/inbox.js';
import { systemClock, type Clock } from '../ports/clock.js';
import { idOfEventFor, type RetractedEvent } from '../model/recipient-ids.js';
import { timeOfId } from '../model/ids.js';
import { postOrRemoveStale, pushToConnection } from './connection-push.js';
import { gateEntry, observingLedger, pairKey, pushOutcome, userKey, type CelebrityJobSettings, type DeliveryInput, type DeliveryReport, type PushObservation } from './delivery-batch.js';
import type { GateCandidate, GateDecision, LiveDeliveryGate } from './live-gate.js';
import { encodeLiveMessage, liveNotification, type PendingPush } from './live-messages.js';
import { OnlineFollowersDelivery } from './online-followers.js';

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
  /** Erasure tombstones: an erased recipient gets nothing (no push, no trace); a job whose author was erased is dropped. */
  erased?: ErasedUsers;
  /** The tenant's retractions, read (uncached) before a snooze comeback is pushed: a comeback of a retracted event is dropped. */
  retractions?: RetractionsReader;
  clock?: Clock;
}

export class LiveDelivery {
  private readonly parallelism: number;
  private readonly onError: DeliveryErrorReporter;
  private readonly onlineFollowers: OnlineFollowersDelivery;

  constructor(private readonly deps: LiveDeliveryDeps) {
    this.parallelism = deps.parallelism ?? 16;
    this.onError = deps.onError ?? (() => undefined);
    this.onlineFollowers = new OnlineFollowersDelivery({
      directory: deps.directory,
      ...(deps.celebrityJobs ? { celebrityJobs: deps.celebrityJobs } : {}),
      isDigestible: (type) => deps.isDigestible(type),
      parallelism: this.parallelism,
      onError: this.onError,
      admitFollowers: (page, job, notification) => this.admitFollowers(page, job, notification),
      pushToConnection: (target, pushes, report) => this.pushToConnection(target, pushes, report),
      postRetracted: (post, report) => this.postRetracted(post, report),
    });
  }

  /**
   * Delivers one queue batch. `urgent`: every notification is its own message. `info`: per
   * connection, several digestible notifications of the batch collapse into one digest.
   */
  async deliver(all: readonly DeliveryInput[], mode: Priority): Promise<DeliveryReport> {
    const report: DeliveryReport = { failedRecordIds: new Set(), messagesSent: 0, duplicatesSkipped: 0, goneConnections: 0 };
    const inputs = await this.withoutErased(all, report);
    const retractions = inputs.filter((input) => input.job.retracted !== undefined);
    const notifications = inputs.filter((input) => input.job.retracted === undefined);
    const recipientInputs = notifications.filter((input) => input.job.target.kind === 'recipients');
    const celebrityInputs = notifications.filter((input) => input.job.target.kind === 'onlineFollowers');
    await Promise.all([this.deliverToRecipients(recipientInputs, mode, report), this.onlineFollowers.deliver(celebrityInputs, mode, report), this.deliverRetractions(retractions, report)]);
    return report;
  }

  /**
   * The batch minus what the erasure tombstones forbid: erased recipients leave their jobs, a job whose
   * author was erased is dropped (its notifications are being deleted), retractions keep going to the
   * others. One lookup for the batch (recipients and authors); a failed lookup fails every record.
   */
  private async withoutErased(inputs: readonly DeliveryInput[], report: DeliveryReport): Promise<DeliveryInput[]> {
    if (!this.deps.erased || inputs.length === 0) return [...inputs];
    let erased: ErasedSet;
    try {
      erased = await erasedAmongUsers(this.deps.erased, inputs.flatMap(({ job }) => [
        { tenantId: job.tenantId, userId: job.notification.actor.id },
        ...(job.target.kind === 'recipients' ? job.target.recipients.map((recipient) => ({ tenantId: job.tenantId, userId: recipient.userId })) : []),
      ]));
    } catch (error) {
      this.onError('erasure tombstone lookup failed', error, { records: inputs.length });
      for (const input of inputs) report.failedRecordIds.add(input.recordId);
      return [];
    }
    if (erased.size === 0) return [...inputs];
    return inputs.flatMap((input): DeliveryInput[] => {
      const { job } = input;
      if (job.retracted === undefined && erased.has({ tenantId: job.tenantId, userId: job.notification.actor.id })) return [];
      if (job.target.kind !== 'recipients') return [input];
      const recipients = job.target.recipients.filter((recipient) => !erased.has({ tenantId: job.tenantId, userId: recipient.userId }));
      return recipients.length === job.target.recipients.length ? [input] : [{ ...input, job: { ...job, target: { ...job.target, recipients } } }];
    });
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
    for (const input of inputs) if (input.job.target.kind === 'onlineFollowers') await this.onlineFollowers.retract(input, report);
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

  /** Snooze comebacks whose root's event was retracted since the snooze: not pushed (their record succeeds). */
  private async withoutRetractedComebacks(inputs: readonly DeliveryInput[]): Promise<DeliveryInput[]> {
    const comebacks = inputs.filter(({ job }) => job.comeback !== undefined);
    if (comebacks.length === 0 || !this.deps.retractions) return [...inputs];
    const nowMs = (this.deps.clock ?? systemClock).nowMs();
    const byTenant = new Map<string, Promise<readonly RetractedEvent[]>>();
    const dropped = new Set<DeliveryInput>();
    for (const input of comebacks) {
      const { job } = input;
      const { rootId, rootActor } = job.comeback!;
      const retractions = await (byTenant.get(job.tenantId) ?? byTenant.set(job.tenantId, this.deps.retractions.retractionsOf(job.tenantId, nowMs)).get(job.tenantId)!);
      const recipients = job.target.kind === 'recipients' ? job.target.recipients : [];
      const retracted = recipients.some(({ userId }) => retractions.some((event) => timeOfId(rootId) === event.arrivalMs && idOfEventFor(job.tenantId, event, rootActor !== undefined ? { actorId: rootActor } : { userId }) === rootId));
      if (retracted) dropped.add(input);
    }
    return inputs.filter((input) => !dropped.has(input));
  }

  private async deliverToRecipients(allInputs: readonly DeliveryInput[], mode: Priority, report: DeliveryReport): Promise<void> {
    if (allInputs.length === 0) return;
    let inputs: DeliveryInput[];
    try {
      inputs = await this.withoutRetractedComebacks(allInputs);
    } catch (error) {
      this.onError('retractions read failed', error, { records: allInputs.length });
      for (const input of allInputs) if (input.job.comeback !== undefined) report.failedRecordIds.add(input.recordId);
      inputs = allInputs.filter((input) => input.job.comeback === undefined);
    }
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
        const pushed = liveNotification(recipient.notificationId, job.notification);
        // A comeback says what it brings back, as on a page (a retraction of its root takes it too).
        const notification = job.comeback ? { ...pushed, comebackOf: job.comeback.rootId } : pushed;
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
  private async admitFollowers(subscribers: readonly ConnectionTarget[], job: DeliveryJob, notification: Notification): Promise<ConnectionTarget[]> {
    // Erased followers (their subscriptions go with the erasure, which may still be running) get nothing.
    const erased = await erasedAmongUsers(this.deps.erased, subscribers);
    const page = erased.size === 0 ? subscribers : subscribers.filter((target) => !erased.has(target));
    if (!this.deps.gate || page.length === 0) return [...page];
    const users = [...new Map(page.map((target) => [userKey(target), { tenantId: target.tenantId, userId: target.userId }])).values()];
    const decisions = await this.decide(users.map((user) => ({ ...user, notification, source: 'celebrity' as const, priority: job.priority, eventId: job.eventId })));
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
