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
import type { AlertJobQueue } from '../jobs/alert-job.js';
import type { CelebrityPostsIndexWriter } from '../ports/celebrity-posts.js';
import type { NotificationType } from '../ports/notification-type.js';
import { MAX_RECIPIENTS_PER_JOB, type RenderedNotification } from '../jobs/delivery-job.js';
import type { DeliveryJobQueue } from '../ports/queues.js';
import type { NotificationEvent } from './events.js';
import type { ArrivalLedger, ArrivalStamp, RecentPostsLog } from '../ports/fan-out.js';
import type { FollowGraph } from '../ports/follow-graph.js';
import type { PromotionJobQueue } from '../ports/queues.js';
import { FollowEffect } from './follow-effect.js';
import { usersNamedBy } from './erasure-lookahead.js';
import type { FanOutSummary } from './fanout-summary.js';
import { followingAt } from '../model/follow-history.js';
import {
  expiresAtOf,
  planFeedWrites,
  planOnlineFollowersJob,
  planRecipientJobs,
  planRecipientWrites,
  renderNotification,
  type DeliveryRecipient,
} from './fanout-plan.js';
import { systemClock, type Clock } from '../ports/clock.js';
import { arrivalCandidateOf, arrivalKeyOf } from './arrival-lookahead.js';
import type { InboxItemToWrite, InboxReader, InboxWriter } from '../ports/inbox.js';
import { isMuted } from '../preferences/preferences.js';
import type { PreferencesReader } from '../preferences/store.js';
import type { Tier } from '../model/tier.js';
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
  /** Tells a retry whether its earlier attempt's first write landed (else it is stamped anew); without it a stamp is always kept. */
  landed?: Pick<InboxReader, 'getItems'>;
  /** Types with `followerAlerts`: the post's alert job (core/channels/post-alerts.ts). */
  alertQueue?: AlertJobQueue;
  /** WARN lines (an event stamped again). */
  logger?: { warn(message: string, details: Record<string, unknown>): void };
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

/**
 * The stamp of one event, taken at most once per attempt and only when something is about to be
 * written; `landed` says whether an earlier attempt's stamp has items under it (the first of the
 * attempt's writes, which it makes before any other), given that stamp (its time and mode).
 */
type ArrivalOf = (landed?: (stamp: ArrivalStamp) => Promise<boolean>) => Promise<ArrivalStamp>;

/** BatchWriteItem's limit: the first write of an event, made alone so a retry can tell whether anything landed. */
const FIRST_WRITE_SIZE = 25;

function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

export class FanOutService {
  private readonly follows: FollowEffect;

  constructor(private readonly deps: FanOutDeps) {
    this.follows = new FollowEffect({ ...deps, withoutMuted: (tenantId, type, userIds) => this.withoutMuted(tenantId, type, userIds) });
  }

  async process(incoming: NotificationEvent, type: NotificationType): Promise<FanOutSummary> {
    const summary: FanOutSummary = { inboxItems: 0, feedItems: 0, deliveryJobs: 0 };
    const event = await this.withoutErased(incoming, type, summary);
    if (!event) return summary;
    // A post to an account's followers: the tier read before the first write is its mode, kept with the stamp (a retry never switches).
    const toFollowers = type.audience !== 'none' && event.followersOf !== undefined;
    const tierNow = toFollowers ? (await this.deps.graph.getProfile(event.tenantId, event.followersOf!)).tier : undefined;
    let stamp: Promise<ArrivalStamp> | undefined;
    const arrivalOf: ArrivalOf = (landed) => (stamp ??= this.stampArrival(event, landed, tierNow));
    // A follow or unfollow: its arrival recorded before anything else can fail (a redrive is a new message).
    if (type.graphEffect) await arrivalOf();
    if (type.audience !== 'none') {
      const rendered = renderNotification(type, event);
      if (event.recipients.length > 0) await this.writeToInboxes(event, rendered, event.recipients, summary, arrivalOf);
      if (toFollowers) {
        await this.fanOutToFollowers(event, rendered, event.followersOf!, summary, arrivalOf, tierNow!);
        if (type.followerAlerts && this.deps.alertQueue) await this.enqueueAlerts(event, rendered, summary, arrivalOf);
      }
    }
    // After the inbox write: a failure retries the whole event, and every step below is idempotent.
    if (type.graphEffect) await this.follows.apply(event, type.graphEffect, type.followeeOf(event.data), (await arrivalOf()).intakeMs, summary);
    if (type.retraction) {
      if (!this.deps.retractions) throw new Error(`fan-out of ${type.detailType} has no retraction store`);
      await this.deps.retractions.retract(event, type.retraction(event.data));
    }
    return summary;
  }

  /** One alert job per post (after its writes, so a pushed follower finds it): its consumer pages the actor's alert subscribers. A retry enqueues it again; dedup keeps the pushes single. */
  private async enqueueAlerts(event: NotificationEvent, rendered: RenderedNotification, summary: FanOutSummary, arrivalOf: ArrivalOf): Promise<void> {
    const stamp = await arrivalOf();
    if (stamp.retracted) return;
    await this.deps.alertQueue!.enqueue({
      v: 1,
      tenantId: event.tenantId,
      eventId: event.eventId,
      priority: event.priority,
      notification: rendered,
      alerts: { actorId: event.followersOf!, arrivalMs: stamp.arrivalMs, mode: summary.audienceTier ?? stamp.mode ?? 'ordinary', page: 0 },
    });
  }

  /**
   * The event minus its erased recipients; undefined (drop it whole) when an erased user is its actor,
   * its follower audience or its followee: every item it would write names them. One BatchGetItem.
   */
  private async withoutErased(event: NotificationEvent, type: NotificationType, summary: FanOutSummary): Promise<NotificationEvent | undefined> {
    if (!this.deps.erased) return event;
    const followeeId = type.graphEffect ? type.followeeOf(event.data) : undefined;
    const named = usersNamedBy(event, type);
    const erased = await this.deps.erased.erasedAmong(event.tenantId, named);
    if (erased.size === 0) return event;
    summary.erasedSkipped = erased.size;
    const principal = [event.actor.id, event.followersOf, followeeId];
    const dropWhole = principal.some((userId) => userId !== undefined && erased.has(userId));
    await this.traceErased(event, erased, dropWhole);
    if (dropWhole) return undefined;
    return { ...event, recipients: event.recipients.filter((userId) => !erased.has(userId)) };
  }

  /** Audit trail: one `erased` decision per erased recipient, and one for the event when it is dropped whole (the trace table keeps only the latter). */
  private async traceErased(event: NotificationEvent, erased: ReadonlySet<string>, dropWhole: boolean): Promise<void> {
    if (!this.deps.trace) return;
    const atMs = Date.now();
    const base = { tenantId: event.tenantId, eventId: event.eventId, stage: 'fanout' as const, outcome: 'erased' as const, atMs };
    await this.deps.trace.record([
      ...event.recipients.filter((userId) => erased.has(userId)).map((userId): TraceEntry => ({ ...base, userId, detail: 'erased recipient: dropped' })),
      ...(dropWhole ? [{ ...base, detail: 'an erased user is the actor, audience or followee: event dropped' }] : []),
    ]);
  }

  /**
   * One conditional put (the ledger keeps the first stamp); its TTL matches the items the stamp dates.
   * A stamp an earlier attempt took but wrote nothing under (it died between the stamp and its first
   * write) is replaced by this attempt's time, so the event lands above every mark and `since` set
   * meanwhile; one that has items under it is kept (ids stay stable: a retry rewrites, never doubles).
   * The intake is the record's SentTimestamp, never after the stamp (clocks of two services).
   */
  private async stampArrival(event: NotificationEvent, landed: ((stamp: ArrivalStamp) => Promise<boolean>) | undefined, mode: Tier | undefined): Promise<ArrivalStamp> {
    const candidateMs = (this.deps.clock ?? systemClock).nowMs();
    const key = arrivalKeyOf(event);
    const expiresAt = expiresAtOf(candidateMs, this.deps.settings.inboxTtlDays);
    // With the handler's lookahead (`arrivals` an ArrivalLookahead), the stamp it started for this event.
    const stamp = await this.deps.arrivals.stampEvent(key, arrivalCandidateOf(event, candidateMs, mode), expiresAt);
    if (stamp.fresh || stamp.retracted || !landed || (await landed(stamp))) return stamp;
    const restamped = await this.deps.arrivals.restampArrival(key, stamp.arrivalMs, candidateMs, expiresAt);
    this.deps.logger?.warn('event stamped again: its first attempt wrote nothing', { tenantId: event.tenantId, type: event.type, eventId: event.eventId, firstStampMs: stamp.arrivalMs, arrivalMs: restamped.arrivalMs });
    return restamped;
  }

  /** Whether any of these items exists (an earlier attempt's first write landed under their stamp). */
  private async anyLanded(writes: readonly InboxItemToWrite[]): Promise<boolean> {
    const probe = this.deps.landed;
    if (!probe) return true;
    const refs = writes.flatMap(({ source, item }) => (source.kind === 'celebrityPosts' ? [] : [{ source, id: item.id }]));
    return refs.length === 0 || (await probe.getItems(refs)).size > 0;
  }

  /** The first FIRST_WRITE_SIZE items alone (what a retry probes), then the rest. */
  private async writeFirstThenRest(writes: readonly InboxItemToWrite[]): Promise<void> {
    await this.deps.inbox.writeInboxItems(writes.slice(0, FIRST_WRITE_SIZE));
    if (writes.length > FIRST_WRITE_SIZE) await this.deps.inbox.writeInboxItems(writes.slice(FIRST_WRITE_SIZE));
  }

  /** Direct audience: inbox items, then jobs for exactly those recipients. */
  private async writeToInboxes(event: NotificationEvent, rendered: RenderedNotification, audience: readonly string[], summary: FanOutSummary, arrivalOf: ArrivalOf): Promise<void> {
    const muted: string[] = [];
    const userIds = await this.withoutMuted(event.tenantId, event.type, audience, muted);
    if (userIds.length === 0) return this.traceRecipients(event, [], muted);
    const ttlDays = this.deps.settings.inboxTtlDays;
    const arrival = await arrivalOf((stamp) => this.anyLanded(planRecipientWrites(event, rendered, userIds.slice(0, FIRST_WRITE_SIZE), ttlDays, stamp.arrivalMs).writes));
    // Retracted before it arrived (or during a retry): nothing to write or push.
    if (arrival.retracted) return;
    const { writes, recipients } = planRecipientWrites(event, rendered, userIds, ttlDays, arrival.arrivalMs);
    await this.writeFirstThenRest(writes);
    const jobs = planRecipientJobs(event, rendered, recipients);
    await this.deps.deliveryQueue.enqueue(jobs);
    // After the jobs, off the push's path (a retry rewrites it: the idempotency record completes after it).
    await this.traceRecipients(event, recipients, muted);
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

  /** The fan-out stage's trace of written, muted and later-followed recipients (after the writes: a retry rewrites it). */
  private async traceRecipients(event: NotificationEvent, written: readonly DeliveryRecipient[], muted: readonly string[], detail = 'inbox item written', followedLater: readonly string[] = []): Promise<void> {
    if (!this.deps.trace) return;
    const atMs = Date.now();
    const entry = (userId: string, outcome: TraceEntry['outcome'], text: string, notificationId?: string): TraceEntry => ({ tenantId: event.tenantId, eventId: event.eventId, userId, stage: 'fanout', outcome, atMs, detail: text, ...(notificationId ? { notificationId } : {}) });
    await this.deps.trace.record([
      ...written.map((recipient) => entry(recipient.userId, 'inbox_written', detail, recipient.notificationId)),
      ...muted.map((userId) => entry(userId, 'muted', `muted ${event.type}: no inbox item, no push`)),
      ...followedLater.map((userId) => entry(userId, 'not_following', `followed ${event.actor.id} after the post arrived: not theirs`)),
    ]);
  }

  /** Two tiers: a celebrity's event goes to its S feed shards; otherwise pages of followers' inboxes. */
  private async fanOutToFollowers(event: NotificationEvent, rendered: RenderedNotification, accountId: string, summary: FanOutSummary, arrivalOf: ArrivalOf, tierNow: Tier): Promise<void> {
    const { settings } = this.deps;
    const feedAt = (stampMs: number) => planFeedWrites(event, rendered, accountId, settings.feedShards, settings.inboxTtlDays, stampMs);
    // An earlier attempt's stamp is kept once its first write exists: feed shards (celebrity mode) or its log entry (ordinary).
    const stamp = await arrivalOf(async (earlier) =>
      (earlier.mode ?? tierNow) === 'celebrity'
        ? this.anyLanded(feedAt(earlier.arrivalMs).writes)
        : (await this.deps.recentPosts.listPostsFrom(event.tenantId, accountId, earlier.arrivalMs, earlier.arrivalMs)).some((post) => post.eventId === event.eventId && post.type === event.type && post.arrivalMs === earlier.arrivalMs),
    );
    if (stamp.retracted) return;
    // The mode of the first attempt (a stamp recorded before modes were kept: the tier now).
    const mode = stamp.mode ?? tierNow;
    summary.audienceTier = mode;
    if (mode === 'celebrity') {
      // The follower list is never read: cost is 3S writes (feed, celebrity posts log and count index shards), one head update and one job, whatever the follower count.
      // Every follower holds (or will hold) a FOLLOWING_CELEBS item: the tier flipped before this read,
      // so a follow counted after it wrote its own, and one counted before it is listed by the pass.
      const feed = feedAt(stamp.arrivalMs);
      // Feed shards and the tenant's celebrity posts log shards in one write (BatchWriteItem, 25 rows per call).
      await this.writeFirstThenRest([...feed.writes, ...feed.celebrityLogWrites]);
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
    const { arrivalMs } = stamp;
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
    let listed = 0;
    let writtenCount = 0;
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
          // The post's audience: the pairs that followed when it arrived (unfollow markers included: a retry may date from before an unfollow).
          const followedThen = page.followers.filter((follower) => followingAt(follower.history, arrivalMs));
          listed += followedThen.length;
          // Mutes are checked per page (100 users per BatchGetItem) here, off the writers' path.
          const muted: string[] = [];
          const audience = await this.withoutMuted(event.tenantId, event.type, followedThen.map((follower) => follower.followerId), muted);
          // A follower now who followed after the post: say so (an unfollowed pair's marker is not traced).
          const later = page.followers.filter((follower) => follower.followedAt !== undefined && !followingAt(follower.history, arrivalMs)).map((follower) => follower.followerId);
          await this.traceRecipients(event, [], muted, undefined, later);
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
          // The author's erasure finds these from their recent posts log and followers: no author index entry.
          await this.deps.inbox.writeInboxItems(event.actor.id === accountId ? writes.map((write) => ({ ...write, foundByPostsLog: true as const })) : writes);
          await this.traceRecipients(event, recipients, [], `inbox item written (follower of ${accountId})`);
          summary.inboxItems += writes.length;
          writtenCount += writes.length;
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
    const retentionDays = settings.inboxTtlDays;
    await this.deps.trace?.record([
      listed === 0
        ? { tenantId: event.tenantId, eventId: event.eventId, actorId: accountId, stage: 'fanout', outcome: 'no_followers', atMs: Date.now(), detail: `ordinary post of ${accountId}, no follower counted yet: kept in ${accountId}'s recent posts log for ${retentionDays} days; a follow that arrived before the post delivers it when it is processed` }
        : { tenantId: event.tenantId, eventId: event.eventId, actorId: accountId, stage: 'fanout', outcome: 'follower_inboxes', atMs: Date.now(), detail: `ordinary post of ${accountId}: written to ${writtenCount} of the ${listed} followers who followed when it arrived (the others muted it); a follow processed later that arrived before the post backfills it` },
    ]);
  }
}
