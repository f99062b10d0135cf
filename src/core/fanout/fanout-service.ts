/**
 * The write side of an event: write the notification (two tiers), enqueue delivery jobs, then apply
 * its graph effect. Every stage is idempotent (deterministic ids, counted-once edges, idempotent
 * puts), the graph effect comes after the inbox write so a failure never leaves a follow applied
 * without its notification, and jobs are enqueued only after their items are written, so a retry
 * after any failure redoes what is missing and a delivered job always finds its notification.
 *
 * Ids carry the event's ARRIVAL: stamped once per event (arrival ledger) right before its first
 * write, so an attempt that failed before writing anything is stamped when it finally lands.
 */
import type { CelebrityPostsIndexWriter } from '../ports/celebrity-posts.js';
import type { GraphEffect, NotificationType } from '../ports/notification-type.js';
import { MAX_RECIPIENTS_PER_JOB, type RenderedNotification } from '../jobs/delivery-job.js';
import type { DeliveryJobQueue } from '../ports/queues.js';
import type { NotificationEvent } from './events.js';
import type { ArrivalLedger, RecentPostsLog } from '../ports/fan-out.js';
import type { AccountProfile, FollowGraph } from '../ports/follow-graph.js';
import type { PromotionJobQueue } from '../ports/queues.js';
import {
  expiresAtOf,
  planBackfill,
  planFeedWrites,
  planOnlineFollowersJob,
  planRecipientJobs,
  planRecipientWrites,
  renderNotification,
  type DeliveryRecipient,
} from './fanout-plan.js';
import { systemClock, type Clock } from '../ports/clock.js';
import type { InboxWriter } from '../ports/inbox.js';
import { isMuted } from '../preferences/preferences.js';
import type { PreferencesReader } from '../preferences/store.js';
import { tierChangeFor, type Tier } from '../model/tier.js';
import type { TraceEntry, TraceRecorder } from '../ports/trace.js';
import type { ErasedUsers } from '../ports/erased-users.js';

export interface FanOutSettings {
  celebrityThreshold: number;
  feedShards: number;
  inboxTtlDays: number;
  /** Followers read per Query page (bounded memory for huge accounts). */
  followerPageSize?: number;
  /** BatchWriteItem calls in flight while writing follower inboxes. */
  writeParallelism?: number;
}

import type { RetractionService } from './retraction.js';

export interface FanOutDeps {
  graph: FollowGraph;
  inbox: InboxWriter;
  /** The arrival clock: one stamp per event, reused by retries, duplicates and replays. */
  arrivals: ArrivalLedger;
  /** The author's inbox-mode posts, so a follow that raced a post backfills it. */
  recentPosts: RecentPostsLog;
  /** The tenant's celebrity posts count index (a celebrity post's key per reader shard). */
  celebrityPostsIndex: CelebrityPostsIndexWriter;
  clock?: Clock;
  deliveryQueue: DeliveryJobQueue;
  promotionQueue: PromotionJobQueue;
  settings: FanOutSettings;
  /** Users who muted the type get no inbox item and no push (short-TTL cached reads). */
  preferences?: PreferencesReader;
  /** The delivery trace (never throws: the composition wraps it); one batched write per written batch. */
  trace?: TraceRecorder;
  /** Erasure tombstones: an erased recipient gets nothing; an event whose actor, audience or followee was erased is dropped. */
  erased?: ErasedUsers;
  /** Retraction types only: records the withdrawal (core/fanout/retraction.ts). */
  retractions?: Pick<RetractionService, 'retract'>;
}

/** What one event did; JSON, stored as the idempotency record's result. */
export interface FanOutSummary {
  inboxItems: number;
  feedItems: number;
  deliveryJobs: number;
  audienceTier?: Tier;
  tierChange?: { from: Tier; to: Tier };
  /** Posts a follow copied into the new follower's inbox (they raced the follow). */
  backfilled?: number;
  /** Users of the event who were erased (tombstone): dropped from it, or the whole event dropped when they were its actor, audience or followee. */
  erasedSkipped?: number;
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

/** The stamp of one event, taken at most once per attempt and only when something is about to be written. */
type ArrivalOf = () => Promise<number>;

/**
 * Tie rule: a follower sees a post iff the post arrived at or after the follow (both in ms). Used by
 * the ordinary tier (skip later follows), the backfill and the feed floor alike.
 */
export function postVisibleToFollow(postArrivalMs: number, followedAtMs: number): boolean {
  return postArrivalMs >= followedAtMs;
}

function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

export class FanOutService {
  constructor(private readonly deps: FanOutDeps) {}

  async process(incoming: NotificationEvent, type: NotificationType): Promise<FanOutSummary> {
    const summary: FanOutSummary = { inboxItems: 0, feedItems: 0, deliveryJobs: 0 };
    const event = await this.withoutErased(incoming, type, summary);
    if (!event) return summary;
    let stamp: Promise<number> | undefined;
    const arrivalOf: ArrivalOf = () => (stamp ??= this.stampArrival(event));
    if (type.audience !== 'none') {
      const rendered = renderNotification(type, event);
      if (event.recipients.length > 0) await this.writeToInboxes(event, rendered, event.recipients, summary, arrivalOf);
      if (event.followersOf !== undefined) await this.fanOutToFollowers(event, rendered, event.followersOf, summary, arrivalOf);
    }
    // After the inbox write: a failure retries the whole event, and every step below is idempotent.
    if (type.graphEffect) await this.applyGraphEffect(event, type.graphEffect, type.followeeOf(event.data), summary, arrivalOf);
    if (type.retraction) {
      if (!this.deps.retractions) throw new Error(`fan-out of ${type.detailType} has no retraction store`);
      await this.deps.retractions.retract(event, type.retraction(event.data));
    }
    return summary;
  }

  /**
   * The event minus its erased recipients; undefined (drop it whole) when an erased user is its actor,
   * its follower audience or its followee: every item it would write names them. One BatchGetItem.
   */
  private async withoutErased(event: NotificationEvent, type: NotificationType, summary: FanOutSummary): Promise<NotificationEvent | undefined> {
    if (!this.deps.erased) return event;
    const followeeId = type.graphEffect ? type.followeeOf(event.data) : undefined;
    const named = [event.actor.id, ...event.recipients, ...(event.followersOf !== undefined ? [event.followersOf] : []), ...(followeeId !== undefined ? [followeeId] : [])];
    const erased = await this.deps.erased.erasedAmong(event.tenantId, named);
    if (erased.size === 0) return event;
    summary.erasedSkipped = erased.size;
    const principal = [event.actor.id, event.followersOf, followeeId];
    if (principal.some((userId) => userId !== undefined && erased.has(userId))) return undefined;
    return { ...event, recipients: event.recipients.filter((userId) => !erased.has(userId)) };
  }

  /** One conditional put (the ledger keeps the first stamp); its TTL matches the items the stamp dates. */
  private stampArrival(event: NotificationEvent): Promise<number> {
    const candidateMs = (this.deps.clock ?? systemClock).nowMs();
    const key = { tenantId: event.tenantId, type: event.type, eventId: event.eventId };
    return this.deps.arrivals.stampArrival(key, candidateMs, expiresAtOf(candidateMs, this.deps.settings.inboxTtlDays));
  }

  /** Direct audience: inbox items, then jobs for exactly those recipients. */
  private async writeToInboxes(event: NotificationEvent, rendered: RenderedNotification, audience: readonly string[], summary: FanOutSummary, arrivalOf: ArrivalOf): Promise<void> {
    const muted: string[] = [];
    const userIds = await this.withoutMuted(event.tenantId, event.type, audience, muted);
    if (userIds.length === 0) return this.traceRecipients(event, [], muted);
    const arrivalMs = await arrivalOf();
    const { writes, recipients } = planRecipientWrites(event, rendered, userIds, this.deps.settings.inboxTtlDays, arrivalMs);
    await this.deps.inbox.writeInboxItems(writes);
    await this.traceRecipients(event, userIds, muted);
    const jobs = planRecipientJobs(event, rendered, recipients);
    await this.deps.deliveryQueue.enqueue(jobs);
    summary.inboxItems += writes.length;
    summary.deliveryJobs += jobs.length;
  }

  /** The audience minus the users who muted this type (unreadable preferences mute nothing: the inbox write is never lost). */
  private async withoutMuted(tenantId: string, type: string, userIds: readonly string[], muted: string[] = []): Promise<readonly string[]> {
    if (!this.deps.preferences || userIds.length === 0) return userIds;
    const lookups = await this.deps.preferences.getPreferences(tenantId, userIds);
    const audience: string[] = [];
    for (const userId of userIds) (isMuted(lookups.get(userId), type) ? muted : audience).push(userId);
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
  private async fanOutToFollowers(event: NotificationEvent, rendered: RenderedNotification, accountId: string, summary: FanOutSummary, arrivalOf: ArrivalOf): Promise<void> {
    const { settings } = this.deps;
    const profile = await this.deps.graph.getProfile(event.tenantId, accountId);
    summary.audienceTier = profile.tier;
    if (profile.tier === 'celebrity') {
      // The follower list is never read: cost is 3S writes (feed, celebrity posts log and count index shards), one head update and one job, whatever the follower count.
      // Every follower holds (or will hold) a FOLLOWING_CELEBS item: the tier flipped before this read,
      // so a follow counted after it wrote its own, and one counted before it is listed by the pass.
      const feed = planFeedWrites(event, rendered, accountId, settings.feedShards, settings.inboxTtlDays, await arrivalOf());
      // Feed shards and the tenant's celebrity posts log shards in one write (BatchWriteItem, 25 rows per call).
      await this.deps.inbox.writeInboxItems([...feed.writes, ...feed.celebrityLogWrites]);
      // After the log items, so a count that sees a key finds the post; a retry sets the same attributes.
      await this.deps.celebrityPostsIndex.indexPosts(feed.postsIndexEntries);
      // After the items exist, so a reader that sees the head finds the post.
      await this.deps.graph.advanceNewestFeedId(event.tenantId, accountId, feed.notificationId);
      await this.deps.deliveryQueue.enqueue([planOnlineFollowersJob(event, rendered, accountId, feed.notificationId)]);
      summary.feedItems += feed.writes.length;
      summary.deliveryJobs += 1;
      await this.deps.trace?.record([{ tenantId: event.tenantId, eventId: event.eventId, actorId: accountId, stage: 'fanout', outcome: 'celebrity_feed', atMs: Date.now(), detail: `written to ${feed.writes.length} feed shards of ${accountId}; followers read it with their inbox` }]);
      return;
    }
    const arrivalMs = await arrivalOf();
    // Logged BEFORE the followers are listed: a follow whose edge the listing missed reads this entry.
    await this.deps.recentPosts.recordPost(event.tenantId, accountId, {
      eventId: event.eventId,
      type: event.type,
      priority: event.priority,
      arrivalMs,
      notification: rendered,
      expiresAt: expiresAtOf(arrivalMs, settings.inboxTtlDays),
    });
    await this.writeToFollowerInboxes(event, rendered, accountId, summary, arrivalMs);
  }

  /**
   * Streams the follower list into the inboxes: one reader pages the followers (a small first page so
   * writing starts at once, then full pages, paused while MAX_BUFFERED_PAGES are unwritten), drops
   * the users who muted the type, and
   * `writeParallelism` writers each take 25 ids at a time (one BatchWriteItem call) with no barrier
   * between pages. Every 100 written recipients become one delivery job, enqueued after the writes.
   * Memory stays bounded by the buffer, whatever the follower count.
   */
  private async writeToFollowerInboxes(event: NotificationEvent, rendered: RenderedNotification, accountId: string, summary: FanOutSummary, arrivalMs: number): Promise<void> {
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
          // A follow that arrived after the post is not its audience (its view starts at followedAt).
          const followedBefore = page.followers.filter((follower) => postVisibleToFollow(arrivalMs, Date.parse(follower.followedAt)));
          // Mutes are checked per page (100 users per BatchGetItem) here, off the writers' path.
          const muted: string[] = [];
          const audience = await this.withoutMuted(event.tenantId, event.type, followedBefore.map((follower) => follower.followerId), muted);
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
          const { writes, recipients } = planRecipientWrites(event, rendered, batch, settings.inboxTtlDays, arrivalMs);
          // The author's erasure finds these from their recent posts log and (former) followers: no author index entry.
          await this.deps.inbox.writeInboxItems(event.actor.id === accountId ? writes.map((write) => ({ ...write, foundByPostsLog: true })) : writes);
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

  /**
   * follow: edge (followedAt = the follow's arrival) before the count; the tier comes from that same
   * counting update. A follow counted while the account is (or ever was) a celebrity writes its own
   * FOLLOWING_CELEBS item; one counted before a promotion is listed by the promotion pass, which reads
   * followers only after the flip. Then the author's inbox-mode posts that arrived at or after the
   * follow but whose listing missed the new edge are copied in (same ids: exactly once).
   */
  private async applyGraphEffect(event: NotificationEvent, effect: GraphEffect, followeeId: string, summary: FanOutSummary, arrivalOf: ArrivalOf): Promise<void> {
    const { graph } = this.deps;
    const followerId = event.actor.id;
    const { tenantId } = event;
    if (effect === 'follow') {
      const arrivalMs = await arrivalOf();
      const outcome = await graph.addFollower({ tenantId, followeeId, followerId, followedAt: new Date(arrivalMs).toISOString() });
      const tier = await this.settleTier(tenantId, followeeId, outcome, summary);
      if (tier === 'celebrity' || outcome.tier === 'celebrity' || outcome.everCelebrity === true) {
        await graph.putFollowedCelebrities([{ tenantId, userId: followerId, celebrityId: followeeId, followedAt: outcome.followedAt }]);
      }
      await this.backfillRecentPosts(tenantId, followeeId, followerId, Date.parse(outcome.followedAt), summary);
      return;
    }
    const profile = await graph.removeFollower(tenantId, followeeId, followerId);
    await graph.removeFollowedCelebrity(tenantId, followerId, followeeId);
    await this.settleTier(tenantId, followeeId, profile, summary);
  }

  /** Copies the author's logged posts with arrival >= followedAt into the follower's inbox (skipping muted types), then their jobs. */
  private async backfillRecentPosts(tenantId: string, authorId: string, followerId: string, followedAtMs: number, summary: FanOutSummary): Promise<void> {
    const nowMs = (this.deps.clock ?? systemClock).nowMs();
    const logged = await this.deps.recentPosts.listPostsFrom(tenantId, authorId, followedAtMs, nowMs);
    const posts = [];
    for (const post of logged) {
      if (!postVisibleToFollow(post.arrivalMs, followedAtMs)) continue;
      if ((await this.withoutMuted(tenantId, post.type, [followerId])).length > 0) posts.push(post);
    }
    if (posts.length === 0) return;
    const { writes, jobs } = planBackfill(tenantId, followerId, posts);
    await this.deps.inbox.writeInboxItems(writes.map((write) => (write.item.actor.id === authorId ? { ...write, foundByPostsLog: true } : write)));
    await this.deps.deliveryQueue.enqueue(jobs);
    summary.inboxItems += writes.length;
    summary.deliveryJobs += jobs.length;
    summary.backfilled = writes.length;
  }

  /**
   * Applies the hysteresis rule to the count after a follow change. A promotion pass is queued BEFORE
   * the flip, so a crash between the two leaves a pass queued (the retry, seeing the tier unchanged,
   * queues again and flips); the pass itself reads followers only once the flip is committed. The flip
   * is guarded by the count, so a stale decision cannot promote an account that fell back below it.
   */
  private async settleTier(tenantId: string, userId: string, profile: AccountProfile, summary: FanOutSummary): Promise<Tier> {
    const change = tierChangeFor(profile, this.deps.settings.celebrityThreshold);
    if (!change) return profile.tier;
    if (change.to === 'celebrity') await this.deps.promotionQueue.enqueue({ v: 1, tenantId, celebrityId: userId });
    const changed = await this.deps.graph.changeTier(tenantId, userId, change);
    // The stored result (Powertools) names nobody: the account is the event's followee, not kept here.
    if (changed) summary.tierChange = { from: change.from, to: change.to };
    return change.to;
  }
}
