/**
 * The write side of an event: apply its graph effect, write the notification (two tiers), then
 * enqueue delivery jobs. Each step is idempotent (deterministic ids, counted-once edges), and jobs
 * are enqueued only after their items are written, so a retry after any failure redoes what is
 * missing and a delivered job always finds its notification.
 */
import type { GraphEffect, NotificationType } from './ports/notification-type.js';
import { MAX_RECIPIENTS_PER_JOB, type RenderedNotification } from './delivery-job.js';
import type { DeliveryJobQueue } from './ports/queues.js';
import type { NotificationEvent } from './events.js';
import type { AccountProfile, FollowGraph } from './ports/follow-graph.js';
import type { PromotionJobQueue } from './ports/queues.js';
import {
  planFeedWrites,
  planOnlineFollowersJob,
  planRecipientJobs,
  planRecipientWrites,
  renderNotification,
  type DeliveryRecipient,
} from './fanout-plan.js';
import type { InboxWriter } from './ports/inbox.js';
import { isMuted } from './preferences.js';
import type { PreferencesReader } from './ports/preferences.js';
import { nextTier, type Tier } from './tier.js';
import type { TraceEntry, TraceRecorder } from './ports/trace.js';

export interface FanOutSettings {
  celebrityThreshold: number;
  feedShards: number;
  inboxTtlDays: number;
  /** Followers read per Query page (bounded memory for huge accounts). */
  followerPageSize?: number;
  /** BatchWriteItem calls in flight while writing follower inboxes. */
  writeParallelism?: number;
}

export interface FanOutDeps {
  graph: FollowGraph;
  inbox: InboxWriter;
  deliveryQueue: DeliveryJobQueue;
  promotionQueue: PromotionJobQueue;
  settings: FanOutSettings;
  /** Users who muted the type get no inbox item and no push (short-TTL cached reads). */
  preferences?: PreferencesReader;
  /** The delivery trace (never throws: the composition wraps it); one batched write per written batch. */
  trace?: TraceRecorder;
}

/** What one event did; JSON, stored as the idempotency record's result. */
export interface FanOutSummary {
  inboxItems: number;
  feedItems: number;
  deliveryJobs: number;
  audienceTier?: Tier;
  tierChange?: { userId: string; from: Tier; to: Tier };
}

const DEFAULT_FOLLOWER_PAGE_SIZE = 1_000;
/** The first follower page is small so the first writes start after a short Query. */
const FIRST_FOLLOWER_PAGE_SIZE = 100;
/** Unwritten follower ids kept in memory, in pages. */
const MAX_BUFFERED_PAGES = 2;
/** BatchWriteItem calls in flight for one event. */
const DEFAULT_WRITE_PARALLELISM = 8;
/** BatchWriteItem's limit: each writer takes this many follower ids per call. */
const BATCH_WRITE_SIZE = 25;

function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

export class FanOutService {
  constructor(private readonly deps: FanOutDeps) {}

  async process(event: NotificationEvent, type: NotificationType): Promise<FanOutSummary> {
    const summary: FanOutSummary = { inboxItems: 0, feedItems: 0, deliveryJobs: 0 };
    if (type.graphEffect) await this.applyGraphEffect(event, type.graphEffect, type.followeeOf(event.data), summary);
    if (type.audience === 'none') return summary;

    const rendered = renderNotification(type, event);
    if (event.recipients.length > 0) await this.writeToInboxes(event, rendered, event.recipients, summary);
    if (event.followersOf !== undefined) await this.fanOutToFollowers(event, rendered, event.followersOf, summary);
    return summary;
  }

  /** Direct audience and the ordinary tier: inbox items, then jobs for exactly those recipients. */
  private async writeToInboxes(event: NotificationEvent, rendered: RenderedNotification, audience: readonly string[], summary: FanOutSummary): Promise<void> {
    const muted: string[] = [];
    const userIds = await this.withoutMuted(event, audience, muted);
    if (userIds.length === 0) return this.traceRecipients(event, [], muted);
    const { writes, recipients } = planRecipientWrites(event, rendered, userIds, this.deps.settings.inboxTtlDays);
    await this.deps.inbox.writeInboxItems(writes);
    await this.traceRecipients(event, userIds, muted);
    const jobs = planRecipientJobs(event, rendered, recipients);
    await this.deps.deliveryQueue.enqueue(jobs);
    summary.inboxItems += writes.length;
    summary.deliveryJobs += jobs.length;
  }

  /** The audience minus the users who muted this type (unreadable preferences mute nothing: the inbox write is never lost). */
  private async withoutMuted(event: NotificationEvent, userIds: readonly string[], muted: string[] = []): Promise<readonly string[]> {
    if (!this.deps.preferences || userIds.length === 0) return userIds;
    const lookups = await this.deps.preferences.getPreferences(event.tenantId, userIds);
    const audience: string[] = [];
    for (const userId of userIds) (isMuted(lookups.get(userId), event.type) ? muted : audience).push(userId);
    return audience;
  }

  /** The fan-out stage's trace of written and muted recipients (after the writes: a retry rewrites it). */
  private async traceRecipients(event: NotificationEvent, written: readonly string[], muted: readonly string[], detail = 'inbox item written'): Promise<void> {
    if (!this.deps.trace) return;
    const atMs = Date.now();
    const entry = (userId: string, outcome: TraceEntry['outcome'], text: string): TraceEntry => ({ tenantId: event.tenantId, eventId: event.eventId, userId, stage: 'fanout', outcome, atMs, detail: text });
    await this.deps.trace.record([...written.map((userId) => entry(userId, 'inbox_written', detail)), ...muted.map((userId) => entry(userId, 'muted', `muted ${event.type}: no inbox item, no push`))]);
  }

  /** Two tiers: a celebrity's event goes to its S feed shards; otherwise pages of followers' inboxes. */
  private async fanOutToFollowers(event: NotificationEvent, rendered: RenderedNotification, accountId: string, summary: FanOutSummary): Promise<void> {
    const { settings } = this.deps;
    const profile = await this.deps.graph.getProfile(event.tenantId, accountId);
    summary.audienceTier = profile.tier;
    if (profile.tier === 'celebrity') {
      // The follower list is never read: cost is S writes and one job, whatever the follower count.
      const feed = planFeedWrites(event, rendered, accountId, settings.feedShards, settings.inboxTtlDays);
      await this.deps.inbox.writeInboxItems(feed.writes);
      await this.deps.deliveryQueue.enqueue([planOnlineFollowersJob(event, rendered, accountId, feed.notificationId)]);
      summary.feedItems += feed.writes.length;
      summary.deliveryJobs += 1;
      await this.deps.trace?.record([{ tenantId: event.tenantId, eventId: event.eventId, stage: 'fanout', outcome: 'celebrity_feed', atMs: Date.now(), detail: `written to ${feed.writes.length} feed shards of ${accountId}; followers read it with their inbox` }]);
      return;
    }
    await this.writeToFollowerInboxes(event, rendered, accountId, summary);
  }

  /**
   * Streams the follower list into the inboxes: one reader pages the followers (a small first page so
   * writing starts at once, then full pages, paused while MAX_BUFFERED_PAGES are unwritten), drops
   * the users who muted the type, and
   * `writeParallelism` writers each take 25 ids at a time (one BatchWriteItem call) with no barrier
   * between pages. Every 100 written recipients become one delivery job, enqueued after the writes.
   * Memory stays bounded by the buffer, whatever the follower count.
   */
  private async writeToFollowerInboxes(event: NotificationEvent, rendered: RenderedNotification, accountId: string, summary: FanOutSummary): Promise<void> {
    const { settings } = this.deps;
    const pageSize = settings.followerPageSize ?? DEFAULT_FOLLOWER_PAGE_SIZE;
    const maxBuffered = pageSize * MAX_BUFFERED_PAGES;
    const buffer: string[] = [];
    const written: DeliveryRecipient[] = [];
    let readingDone = false;
    let failed = false;
    let wake = signal();

    const notify = () => {
      const current = wake;
      wake = signal();
      current.resolve();
    };
    const enqueueJobs = async (recipients: DeliveryRecipient[]) => {
      const jobs = planRecipientJobs(event, rendered, recipients);
      await this.deps.deliveryQueue.enqueue(jobs);
      summary.deliveryJobs += jobs.length;
    };

    const reader = async () => {
      let after: string | undefined;
      let limit = Math.min(FIRST_FOLLOWER_PAGE_SIZE, pageSize);
      try {
        do {
          while (buffer.length >= maxBuffered && !failed) await wake.promise;
          if (failed) return;
          const page = await this.deps.graph.listFollowersPage(event.tenantId, accountId, after, limit);
          // Mutes are checked per page (100 users per BatchGetItem) here, off the writers' path.
          const muted: string[] = [];
          const audience = await this.withoutMuted(event, page.followers.map((follower) => follower.followerId), muted);
          await this.traceRecipients(event, [], muted);
          for (const followerId of audience) buffer.push(followerId);
          after = page.next;
          limit = pageSize;
          notify();
        } while (after !== undefined);
      } finally {
        readingDone = true;
        notify();
      }
    };

    const writer = async () => {
      for (;;) {
        if (failed) return;
        if (buffer.length >= BATCH_WRITE_SIZE || (readingDone && buffer.length > 0)) {
          const batch = buffer.splice(0, BATCH_WRITE_SIZE);
          notify();
          const { writes, recipients } = planRecipientWrites(event, rendered, batch, settings.inboxTtlDays);
          await this.deps.inbox.writeInboxItems(writes);
          await this.traceRecipients(event, batch, [], `inbox item written (follower of ${accountId})`);
          summary.inboxItems += writes.length;
          written.push(...recipients);
          while (written.length >= MAX_RECIPIENTS_PER_JOB) await enqueueJobs(written.splice(0, MAX_RECIPIENTS_PER_JOB));
          continue;
        }
        if (readingDone) return;
        await wake.promise;
      }
    };

    const guard = async (work: () => Promise<void>) => {
      try {
        await work();
      } catch (error) {
        failed = true;
        notify();
        throw error;
      }
    };
    await Promise.all([guard(reader), ...Array.from({ length: settings.writeParallelism ?? DEFAULT_WRITE_PARALLELISM }, () => guard(writer))]);
    if (written.length > 0) await enqueueJobs(written.splice(0));
  }

  private async applyGraphEffect(event: NotificationEvent, effect: GraphEffect, followeeId: string, summary: FanOutSummary): Promise<void> {
    const { graph } = this.deps;
    const followerId = event.actor.id;
    if (effect === 'follow') {
      const followedAt = new Date(event.timeMs).toISOString();
      const profile = await graph.addFollower({ tenantId: event.tenantId, followeeId, followerId, followedAt });
      const tier = await this.settleTier(event.tenantId, followeeId, profile, summary);
      // A new follower of a celebrity merges its feed from now on (a promotion pass covers the others).
      if (tier === 'celebrity') await graph.putFollowedCelebrities([{ tenantId: event.tenantId, userId: followerId, celebrityId: followeeId, followedAt }]);
      return;
    }
    const profile = await graph.removeFollower(event.tenantId, followeeId, followerId);
    await graph.removeFollowedCelebrity(event.tenantId, followerId, followeeId);
    await this.settleTier(event.tenantId, followeeId, profile, summary);
  }

  /**
   * Applies the hysteresis rule to the count after a follow change. On promotion the background
   * pass is queued BEFORE the tier flips: if the enqueue fails the event is retried and the rule
   * fires again; a pass that runs twice rewrites the same items.
   */
  private async settleTier(tenantId: string, userId: string, profile: AccountProfile, summary: FanOutSummary): Promise<Tier> {
    const target = nextTier(profile.tier, profile.followerCount, this.deps.settings.celebrityThreshold);
    if (target === profile.tier) return target;
    if (target === 'celebrity') await this.deps.promotionQueue.enqueue({ v: 1, tenantId, celebrityId: userId });
    const changed = await this.deps.graph.changeTier(tenantId, userId, profile.tier, target);
    if (changed) summary.tierChange = { userId, from: profile.tier, to: target };
    return target;
  }
}
