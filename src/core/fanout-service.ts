/**
 * The write side of an event: apply its graph effect, write the notification (two tiers), then
 * enqueue delivery jobs. Each step is idempotent (deterministic ids, counted-once edges), and jobs
 * are enqueued only after their items are written, so a retry after any failure redoes what is
 * missing and a delivered job always finds its notification.
 */
import type { NotificationType } from '../notifications/notification-type.js';
import type { DeliveryJobQueue, RenderedNotification } from './delivery-job.js';
import type { NotificationEvent } from './events.js';
import type { AccountProfile, FollowGraph, PromotionJobQueue } from './fanout-ports.js';
import {
  flushableCount,
  planFeedWrites,
  planOnlineFollowersJob,
  planRecipientJobs,
  planRecipientWrites,
  renderNotification,
} from './fanout-plan.js';
import type { InboxWriter } from './ports.js';
import { nextTier, type Tier } from './tier.js';

export interface FanOutSettings {
  celebrityThreshold: number;
  feedShards: number;
  inboxTtlDays: number;
  /** Followers read per Query page (bounded memory for huge accounts). */
  followerPageSize?: number;
}

export interface FanOutDeps {
  graph: FollowGraph;
  inbox: InboxWriter;
  deliveryQueue: DeliveryJobQueue;
  promotionQueue: PromotionJobQueue;
  settings: FanOutSettings;
}

/** What one event did; JSON, stored as the idempotency record's result. */
export interface FanOutSummary {
  inboxItems: number;
  feedItems: number;
  deliveryJobs: number;
  audienceTier?: Tier;
  tierChange?: { userId: string; from: Tier; to: Tier };
}

export const DEFAULT_FOLLOWER_PAGE_SIZE = 1_000;

export class FanOutService {
  constructor(private readonly deps: FanOutDeps) {}

  async process(event: NotificationEvent, type: NotificationType<any>): Promise<FanOutSummary> {
    const summary: FanOutSummary = { inboxItems: 0, feedItems: 0, deliveryJobs: 0 };
    if (type.graphEffect) await this.applyGraphEffect(event, type.graphEffect, summary);
    if (type.audience === 'none') return summary;

    const rendered = renderNotification(type, event);
    if (event.recipients.length > 0) await this.writeToInboxes(event, rendered, event.recipients, summary);
    if (event.followersOf !== undefined) await this.fanOutToFollowers(event, rendered, event.followersOf, summary);
    return summary;
  }

  /** Direct audience and the ordinary tier: inbox items, then jobs for exactly those recipients. */
  private async writeToInboxes(event: NotificationEvent, rendered: RenderedNotification, userIds: readonly string[], summary: FanOutSummary): Promise<void> {
    const { writes, recipients } = planRecipientWrites(event, rendered, userIds, this.deps.settings.inboxTtlDays);
    await this.deps.inbox.putAll(writes);
    const jobs = planRecipientJobs(event, rendered, recipients);
    await this.deps.deliveryQueue.enqueue(jobs);
    summary.inboxItems += writes.length;
    summary.deliveryJobs += jobs.length;
  }

  /** Two tiers: a celebrity's event goes to its S feed shards; otherwise pages of followers' inboxes. */
  private async fanOutToFollowers(event: NotificationEvent, rendered: RenderedNotification, accountId: string, summary: FanOutSummary): Promise<void> {
    const { settings } = this.deps;
    const profile = await this.deps.graph.getProfile(event.tenantId, accountId);
    summary.audienceTier = profile.tier;
    if (profile.tier === 'celebrity') {
      // The follower list is never read: cost is S writes and one job, whatever the follower count.
      const feed = planFeedWrites(event, rendered, accountId, settings.feedShards, settings.inboxTtlDays);
      await this.deps.inbox.putAll(feed.writes);
      await this.deps.deliveryQueue.enqueue([planOnlineFollowersJob(event, rendered, accountId, feed.notificationId)]);
      summary.feedItems += feed.writes.length;
      summary.deliveryJobs += 1;
      return;
    }
    const pageSize = settings.followerPageSize ?? DEFAULT_FOLLOWER_PAGE_SIZE;
    const listPage = (after: string | undefined) => this.deps.graph.listFollowersPage(event.tenantId, accountId, after, pageSize);
    let buffered: string[] = [];
    let pending = listPage(undefined);
    for (;;) {
      const page = await pending;
      // Read the next page while this one is written: the Query hides behind the BatchWrites.
      if (page.next !== undefined) pending = listPage(page.next);
      for (const follower of page.followers) buffered.push(follower.followerId);
      const isLast = page.next === undefined;
      const count = flushableCount(buffered.length, isLast);
      if (count > 0) {
        await this.writeToInboxes(event, rendered, buffered.slice(0, count), summary);
        buffered = buffered.slice(count);
      }
      if (isLast) return;
    }
  }

  private async applyGraphEffect(event: NotificationEvent, effect: 'follow' | 'unfollow', summary: FanOutSummary): Promise<void> {
    const { graph } = this.deps;
    const followeeId = event.data.followeeId as string;
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
