/**
 * The graph effect of a follow or an unfollow, by ARRIVAL (src/core/model/follow-history.ts): the
 * record joins its pair's history at its intake time, whatever order the queues run in, so a late
 * record never undoes a later one and a follow delivers the posts that arrived after it.
 *
 * One event holds the pair while it works (`recordFollowChange` takes it; another event's record of
 * the pair waits for its SQS retry), in this order, every step idempotent:
 * 1. the record into the history (the pair taken);
 * 2. the followee's count, if the pair's current state is not what is counted (exactly once: the
 *    count item keeps this event's claim until step 6), and the tier the count calls for;
 * 3. the followed-celebrities pack of a (once) celebrity followee: the current run's start, or out;
 * 4. a follow: the author's logged posts that arrived in the window it decides, copied into the
 *    follower's inbox (same ids as the post's own fan-out: exactly once);
 * 5. the derived state stored and the pair let go: `counted`, `followedAt` or, for an unfollowed
 *    pair, the marker's expiry, records past the retention horizon dropped;
 * 6. the count claim dropped.
 *
 * An unfollowed pair's item stays as a marker until `followRecordRetentionDays` after its last
 * unfollow: long enough that no older record can still arrive (see `MAX_RECORD_DELAY_DAYS`).
 */
import { planBackfill } from './fanout-plan.js';
import type { FanOutSummary } from './fanout-summary.js';
import type { NotificationEvent } from './events.js';
import { compactableRecords, currentRun, followingAt, followRecordRetentionDays, lastUnfollowAt, windowOf, type FollowRecord, type FollowRecordKind, type FollowRun } from '../model/follow-history.js';
import { tierChangeFor, type Tier } from '../model/tier.js';
import { systemClock, type Clock } from '../ports/clock.js';
import type { LoggedPost, RecentPostsLog } from '../ports/fan-out.js';
import type { AccountProfile, FollowGraph, FollowPair, PairState } from '../ports/follow-graph.js';
import type { InboxWriter } from '../ports/inbox.js';
import type { DeliveryJobQueue, PromotionJobQueue } from '../ports/queues.js';
import type { TraceEntry, TraceRecorder } from '../ports/trace.js';
import { createHash } from 'node:crypto';

const DAY_MS = 86_400_000;

/** Another event is applying a record of the same pair: this one is retried (SQS) once it is done. */
export class PairBusyError extends Error {
  override readonly name = 'PairBusyError';
  constructor(pair: FollowPair, heldBy: string) {
    super(`the follow pair ${pair.followerId} -> ${pair.followeeId} is held by another event (${heldBy}); retried later`);
  }
}

export interface FollowEffectDeps {
  graph: FollowGraph;
  inbox: InboxWriter;
  recentPosts: RecentPostsLog;
  deliveryQueue: DeliveryJobQueue;
  promotionQueue: PromotionJobQueue;
  settings: { celebrityThreshold: number; inboxTtlDays: number };
  clock?: Clock;
  trace?: TraceRecorder;
  /** The users among `userIds` who did not mute `type` (a muted type is not backfilled). */
  withoutMuted(tenantId: string, type: string, userIds: readonly string[]): Promise<readonly string[]>;
}

/** The token of the event applying a record: the same on every retry and duplicate, never another event's. */
export function pairOwnerOf(event: Pick<NotificationEvent, 'type' | 'eventId'>): string {
  return createHash('sha256').update(`${event.type}\u0000${event.eventId}`).digest('base64url').slice(0, 22);
}

const sameRun = (a: FollowRun, b: FollowRun) => a.following === b.following && (!a.following || (b.following && a.sinceMs === b.sinceMs));
const iso = (ms: number) => new Date(ms).toISOString();

export class FollowEffect {
  constructor(private readonly deps: FollowEffectDeps) {}

  private get clock(): Clock {
    return this.deps.clock ?? systemClock;
  }

  /** Applies `kind` of `event.actor` -> `followeeId`, arrived at `intakeMs`. */
  async apply(event: NotificationEvent, kind: FollowRecordKind, followeeId: string, intakeMs: number, summary: FanOutSummary): Promise<void> {
    const { graph } = this.deps;
    const pair: FollowPair = { tenantId: event.tenantId, followeeId, followerId: event.actor.id };
    const owner = pairOwnerOf(event);
    const record: FollowRecord = { atMs: intakeMs, kind };
    const state = await graph.recordFollowChange({ ...pair, record, owner });
    if (state.heldBy !== owner) throw new PairBusyError(pair, state.heldBy);
    const run = currentRun(state.history);
    const before = currentRun(state.history.filter((other) => other.atMs !== record.atMs || other.kind !== record.kind));

    let profile: AccountProfile;
    let claimed: boolean;
    if (state.counted !== run.following) {
      profile = await graph.countPair(pair.tenantId, followeeId, owner, run.following ? 1 : -1);
      claimed = true;
    } else {
      const read = await graph.profileForPair(pair.tenantId, followeeId, owner);
      profile = read.profile;
      claimed = read.claimLeft;
    }
    const tier = await this.settleTier(pair.tenantId, followeeId, profile, summary);

    // A feed to merge: the followee is, was or just became a celebrity (a pass lists the pairs counted before a flip).
    const feeds = tier === 'celebrity' || profile.tier === 'celebrity' || profile.everCelebrity === true;
    if (feeds && (state.resumed || !sameRun(before, run))) await this.updatePack(pair, before, run);

    let backfilled = 0;
    if (kind === 'follow' && (state.recordWasNew || state.resumed)) backfilled = await this.backfill(event, pair, state, record, summary);

    const nowMs = this.clock.nowMs();
    const retentionMs = followRecordRetentionDays(this.deps.settings.inboxTtlDays) * DAY_MS;
    const unfollowedAt = lastUnfollowAt(state.history);
    await graph.releasePair({
      ...pair,
      owner,
      counted: run.following,
      run,
      ...(!run.following && unfollowedAt !== undefined ? { markerExpiresAt: Math.ceil((unfollowedAt + retentionMs) / 1000) } : {}),
      compact: compactableRecords(state.history, nowMs - retentionMs),
    });
    if (claimed) await graph.forgetCountClaim(pair.tenantId, followeeId, owner);
    await this.deps.trace?.record([{ tenantId: pair.tenantId, eventId: event.eventId, userId: pair.followerId, followeeId, stage: 'fanout', outcome: 'graph_updated', atMs: Date.now(), detail: describe(kind, record, before, run, backfilled, followeeId) }]);
  }

  /** The pair's pack entry: the current run's start (replacing an earlier one), or none. */
  private async updatePack(pair: FollowPair, before: FollowRun, run: FollowRun): Promise<void> {
    const { graph } = this.deps;
    if (!run.following) return graph.removeFollowedCelebrity(pair.tenantId, pair.followerId, pair.followeeId);
    const entry = { tenantId: pair.tenantId, userId: pair.followerId, celebrityId: pair.followeeId, followedAt: iso(run.sinceMs) };
    // A run that existed with another start may have its element in the pack: replace it.
    if (before.following && before.sinceMs !== run.sinceMs) return graph.replaceFollowedCelebrity(entry);
    return graph.putFollowedCelebrities([entry]);
  }

  /**
   * Copies the author's logged posts that arrived in the window this follow decides (from its
   * arrival to the next unfollow after it) into the follower's inbox, skipping muted types; then
   * their jobs. The posts whose fan-out listed the pair already have the same items.
   */
  private async backfill(event: NotificationEvent, pair: FollowPair, state: PairState, record: FollowRecord, summary: FanOutSummary): Promise<number> {
    const window = windowOf(state.history, record);
    const logged = await this.deps.recentPosts.listPostsFrom(pair.tenantId, pair.followeeId, window.fromMs, this.clock.nowMs());
    const posts: LoggedPost[] = [];
    for (const post of logged) {
      if (window.untilMs !== undefined && post.arrivalMs >= window.untilMs) continue;
      if (!followingAt(state.history, post.arrivalMs)) continue;
      if ((await this.deps.withoutMuted(pair.tenantId, post.type, [pair.followerId])).length > 0) posts.push(post);
    }
    if (posts.length === 0) return 0;
    const { writes, jobs } = planBackfill(pair.tenantId, pair.followerId, posts);
    // The followee's own posts: their erasure finds these from their recent posts log and followers (no author index entry).
    await this.deps.inbox.writeInboxItems(writes.map((write) => (write.item.actor.id === pair.followeeId ? { ...write, foundByPostsLog: true as const } : write)));
    const atMs = Date.now();
    await this.deps.trace?.record(
      posts.map((post): TraceEntry => ({
        tenantId: pair.tenantId,
        eventId: post.eventId,
        userId: pair.followerId,
        stage: 'fanout',
        outcome: 'backfilled',
        atMs,
        detail: `backfilled by follow ${event.eventId} of ${pair.followeeId} (arrived ${iso(record.atMs)}, at or before the post's ${iso(post.arrivalMs)}), processed after the post`,
      })),
    );
    await this.deps.deliveryQueue.enqueue(jobs);
    summary.inboxItems += writes.length;
    summary.deliveryJobs += jobs.length;
    summary.backfilled = (summary.backfilled ?? 0) + writes.length;
    return writes.length;
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
    // Not the account's id: the stored result (keyed by a hash, tenantless) names nobody an erasure could not find.
    if (changed) {
      summary.tierChange = { from: change.from, to: change.to };
      return change.to;
    }
    // Lost the race (another record moved the count past the guard, or flipped first): the stored
    // tier decides, never the one asked for. Taking `change.to` wrote a celebrity edge for a follow of
    // an account that stayed ordinary (issue 26, found by the model). One GetItem, on this path only.
    return (await this.deps.graph.getProfile(tenantId, userId)).tier;
  }
}

/** The trace line of a follow or unfollow: what it did to the pair. */
function describe(kind: FollowRecordKind, record: FollowRecord, before: FollowRun, run: FollowRun, backfilled: number, followeeId: string): string {
  const state = run.following ? `follows ${followeeId} since ${iso(run.sinceMs)}` : `does not follow ${followeeId}`;
  const arrived = `${kind} arrived ${iso(record.atMs)}`;
  let what: string;
  if (!sameRun(before, run)) what = `${arrived} applied: ${state}`;
  else if (run.following === (kind === 'follow')) what = `${arrived}: no change, ${state}`;
  else what = `${arrived}: a later record of the pair was processed first and stands, ${state}`;
  return backfilled > 0 ? `${what}; ${backfilled} post(s) that arrived after it and were processed before it backfilled` : what;
}
