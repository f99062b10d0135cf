/**
 * Pushes of a celebrity's post (and of its retraction) to the post author's online subscribers: with
 * celebrity jobs, the root job is split once per subscriber shard and each shard job pushes one page
 * (at most CONNECTIONS_PER_JOB connections) after enqueueing the next, so pages run in parallel on
 * the consumers and no invocation pages a whole audience; without, one job pages them all.
 */
import { createHash } from 'node:crypto';
import { CONNECTIONS_PER_JOB, type DeliveryJob, type Priority } from '../jobs/delivery-job.js';
import { forEachBounded } from '../model/bounded-parallel.js';
import type { Notification } from '../model/notification.js';
import { recipientNotificationId } from '../model/recipient-ids.js';
import type { ConnectionDirectory, ConnectionTarget, DeliveryErrorReporter, SubscriberPage } from '../ports/live.js';
import type { CelebrityJobSettings, DeliveryInput, DeliveryReport } from './delivery-batch.js';
import { liveNotification, type PendingPush } from './live-messages.js';

/**
 * A celebrity's online subscribers are spread over S partitions by connection id, so a connect
 * storm of one celebrity's followers does not hit one partition's write limit.
 */
export const ONLINE_SUBSCRIBER_SHARDS = 8;

export function onlineSubscriberShard(connectionId: string, shardCount = ONLINE_SUBSCRIBER_SHARDS): number {
  return createHash('sha256').update(connectionId).digest().readUInt32BE(0) % shardCount;
}

export interface OnlineFollowersDeps {
  directory: Pick<ConnectionDirectory, 'onlineSubscriberPages'>;
  /** Without it a celebrity job pages every online subscriber in one invocation. */
  celebrityJobs?: CelebrityJobSettings;
  isDigestible(notificationType: string): boolean;
  parallelism: number;
  onError: DeliveryErrorReporter;
  /** The connections of a page whose users the gate lets through now (`LiveDelivery`'s gate and trace). */
  admitFollowers(page: readonly ConnectionTarget[], job: DeliveryJob, notification: Notification): Promise<ConnectionTarget[]>;
  /** The push routine, its outcome added to the report. */
  pushToConnection(target: ConnectionTarget, pushes: readonly PendingPush<string>[], report: DeliveryReport): Promise<void>;
  /** One `retracted` message; a failure fails its record. */
  postRetracted(post: { recordId: string; target: ConnectionTarget; ids: string[] }, report: DeliveryReport): Promise<void>;
}

export class OnlineFollowersDelivery {
  constructor(private readonly deps: OnlineFollowersDeps) {}

  /** One shard page (or, without celebrity jobs, every page) of a celebrity's online followers. */
  async retract(input: DeliveryInput, report: DeliveryReport): Promise<void> {
    const { recordId, job } = input;
    if (job.target.kind !== 'onlineFollowers' || !job.retracted) return;
    const target = job.target;
    const { eventId, arrivalMs } = job.retracted;
    const idsOf = (connection: ConnectionTarget) => [target.notificationId, recipientNotificationId(job.tenantId, job.notification.type, eventId, connection.userId, arrivalMs)];
    const push = (page: readonly ConnectionTarget[]) => forEachBounded(page, this.deps.parallelism, (connection) => this.deps.postRetracted({ recordId, target: connection, ids: idsOf(connection) }, report));
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
      this.deps.onError('online subscriber paging failed', error, { recordId, actorId: target.actorId });
      report.failedRecordIds.add(recordId);
    }
  }

  /** Celebrity post jobs: split per subscriber shard, then one page per job (with celebrity jobs), or every page here. */
  async deliver(inputs: readonly DeliveryInput[], mode: Priority, report: DeliveryReport): Promise<void> {
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
      this.deps.onError('put-back of celebrity page jobs failed', error, { records: putBack.length });
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
      this.deps.onError('online subscriber page failed', error, { recordId, actorId: target.actorId, shard });
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
      const admitted = await this.deps.admitFollowers(page.targets, job, notification);
      await forEachBounded(admitted, this.deps.parallelism, (connection) => this.deps.pushToConnection(connection, [{ notification, digestible, tag: recordId }], report));
    } catch (error) {
      this.deps.onError('live gate failed', error, { recordId, actorId: target.actorId, shard });
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
      this.deps.onError('celebrity job step failed', error, { recordId, step });
      report.failedRecordIds.add(recordId);
      if (claimed) await celebrityJobs.steps.releaseStep(notificationId, step).catch((releaseError: unknown) => this.deps.onError('step release failed', releaseError, { recordId, step }));
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
          const page = await this.deps.admitFollowers(subscribers, job, notification);
          await forEachBounded(page, this.deps.parallelism, (target) => this.deps.pushToConnection(target, [{ notification, digestible, tag: recordId }], report));
        }
      } catch (error) {
        this.deps.onError('online subscriber paging failed', error, { recordId, actorId: job.target.actorId });
        report.failedRecordIds.add(recordId);
      }
    }
  }
}
