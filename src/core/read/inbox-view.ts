/**
 * A user's inbox view: the sources it is merged from (their own partition and one shard of each
 * followed celebrity's feed, from followedAt on), what it leaves out (muted types on feeds, the
 * tenant's retracted events), and which ids are in it (`findInView`, for the per-item writes: one
 * lookup round whatever the number of followed celebrities).
 */
import { idLowerBoundAt, idUpperBoundAt } from '../model/ids.js';
import type { ReadState } from '../model/read-state.js';
import { RetractedIds } from './retracted-ids.js';
import { readerShard } from '../model/feed-shards.js';
import type { FollowedCelebrity } from '../model/followed-pack.js';
import { isExpired, type Notification, type StoredNotification } from '../model/notification.js';
import type { UserRef } from '../model/user.js';
import type { CelebrityPostsReader } from '../ports/celebrity-posts.js';
import type { Clock } from '../ports/clock.js';
import type { ActionLookupReader, FeedHeadsReader, FollowedCelebritiesReader, InboxReader, InboxSource, MutedTypesReader, ReadStateStore, Retraction, RetractionsReader } from '../ports/inbox.js';
import type { CelebrityLogBudget } from './celebrity-posts-view.js';

export interface InboxReadDeps {
  inbox: InboxReader;
  celebrities: FollowedCelebritiesReader;
  /** Feed heads: without it every followed feed is queried (cost 1 Query per celebrity). */
  feedHeads?: FeedHeadsReader;
  /** The tenant's celebrity posts log, read instead of the feeds when the user follows more than `celebrityLogFromFollowed` celebrities. */
  celebrityPosts?: CelebrityPostsReader;
  /** Default CELEBRITY_LOG_MIN_FOLLOWED. */
  celebrityLogFromFollowed?: number;
  /** Default DEFAULT_CELEBRITY_LOG_BUDGET. */
  celebrityLogBudget?: Partial<CelebrityLogBudget>;
  /** Counts move the floor only over at least this many ids (default FLOOR_MIN_STEP; the model tests use 1). */
  countsFloorMinStep?: number;
  /** `advanceCountsFloor`: without it counts never move the floor (they still read one). */
  readState: Pick<ReadStateStore, 'readWindow' | 'listExceptions' | 'readAboveMark' | 'getExceptions'> & Partial<Pick<ReadStateStore, 'advanceCountsFloor'>>;
  /** The per-item actions' lookup (one round over the own partition, the celebrity posts log, the read state and the follows). */
  actionLookup?: ActionLookupReader;
  clock: Clock;
  cursorSecret: string;
  feedShards: number;
  inboxTtlDays: number;
  /** The user's muted types: left out of celebrity feeds at read time (their own inbox never got them). */
  mutedTypes?: MutedTypesReader;
  /** The tenant's retracted events (cached): their notifications leave every list and count. */
  retractions?: RetractionsReader;
  /** The action link and buttons a notification shows (from its type's catalog entry), sanitized. */
  linksOf?: (item: StoredNotification) => Pick<Notification, 'actionUrl' | 'actions'>;
}

/** A notification a per-item action targets: its item, and the celebrity whose feed holds it (absent: own). */
export interface ActionTarget {
  item: StoredNotification;
  source?: string;
}

export interface ViewLookup {
  inView: Map<string, ActionTarget>;
  snoozedAway: Map<string, ActionTarget>;
  /** The marks and the exceptions of the ids (and of the snoozed items the comebacks among them bring back). */
  state: ReadState;
}

export interface ViewSource {
  source: InboxSource;
  /** Exclusive lower bound of this source's ids in the user's view (followedAt for feeds). */
  floor?: string;
}

export interface FeedView extends ViewSource {
  /** The feed's newest id (from the celebrity's profile); undefined when unknown. */
  head?: string;
  /** The feed's second newest id ('0' = none); undefined when unknown. */
  previous?: string;
}

/** Feed queries sent at once in one wave of a read (latency without a burst of requests). */
export const MAX_QUERIES_PER_WAVE = 16;

export function compareIdsDescending(a: string, b: string): number {
  return a === b ? 0 : a > b ? -1 : 1;
}

/** Descending order of upper bounds, an unknown (undefined) bound first. */
export function compareBoundsDescending(a: string | undefined, b: string | undefined): number {
  if (a === b) return 0;
  if (a === undefined) return -1;
  if (b === undefined) return 1;
  return a > b ? -1 : 1;
}

export function maxId(a: string | undefined, b: string | undefined): string | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return a > b ? a : b;
}

/**
 * A feed's exclusive upper bound for reads: nothing above its head. The head is written after the
 * post's items, so it is the post's publish point: an item above it (a fan-out killed between the two
 * writes, or one still in flight) is not in anyone's view until the head reaches it, and every read
 * (page, `since`, counts, the head shortcuts) agrees on that. `head + '0'` sorts just above the head
 * and below every other id above it (ids have one length). An unknown head bounds nothing.
 */
export function feedCeiling(before: string, head: string | undefined): string {
  if (head === undefined) return before;
  const justAboveHead = `${head}0`;
  return justAboveHead < before ? justAboveHead : before;
}

export function ownSourceOf(user: UserRef): InboxSource {
  return { kind: 'own', tenantId: user.tenantId, userId: user.userId };
}

export class InboxView {
  constructor(private readonly deps: InboxReadDeps) {}

  /** The sources that make up a user's inbox view: own partition + one shard per followed celebrity. */
  viewSources(user: UserRef, celebrities: readonly FollowedCelebrity[]): ViewSource[] {
    const shard = readerShard(user.userId, this.deps.feedShards);
    const feeds = celebrities.map<ViewSource>((celebrity) => ({
      source: { kind: 'feed', tenantId: user.tenantId, actorId: celebrity.celebrityId, shard },
      // Exclusive floor: ids whose time is at or after followedAt belong to the view.
      floor: idLowerBoundAt(celebrity.followedAtMs),
    }));
    return [{ source: ownSourceOf(user) }, ...feeds];
  }

  /**
   * The followed feeds with their newest id (one BatchGetItem of profiles per 100 celebrities), minus
   * those that hold nothing above `lowerOf(feed)`; a feed whose head is unknown is always kept.
   */
  async feedViews(user: UserRef, celebrities: readonly FollowedCelebrity[], lowerOf: (floor: string | undefined) => string | undefined): Promise<FeedView[]> {
    if (celebrities.length === 0) return [];
    const heads = this.deps.feedHeads ? await this.deps.feedHeads.feedHeads(user.tenantId, celebrities.map((celebrity) => celebrity.celebrityId)) : undefined;
    const views = this.viewSources(user, celebrities).slice(1);
    return views
      .map((view, index): FeedView => {
        const head = heads?.get(celebrities[index]!.celebrityId);
        return { ...view, head: head?.newest, previous: head?.previous };
      })
      .filter(({ head, floor }) => {
        const lower = lowerOf(floor);
        return head === undefined || lower === undefined || head > lower;
      });
  }

  /** The tenant's retractions (none without a reader). */
  async retractionsOf(user: UserRef, nowMs: number): Promise<readonly Retraction[]> {
    return this.deps.retractions ? this.deps.retractions.retractionsOf(user.tenantId, nowMs) : [];
  }

  /** Muted types apply to feeds only; none without a reader. */
  async mutedTypesOf(user: UserRef): Promise<readonly string[]> {
    return this.deps.mutedTypes ? this.deps.mutedTypes.mutedTypesOf(user) : [];
  }

  /**
   * The ids of a per-item action that are in the user's view, with the read state they are changed
   * over: ONE lookup round whatever k is (own partition, the reader's shard of the celebrity posts
   * log, the marks and the ids' exceptions, the followed pack; with the tenant's retractions, cached),
   * plus one BatchGetItem of the snoozed items' exceptions when an id is a snooze comeback.
   * In the view: arrived, unexpired, not deleted or snoozed away, not retracted, a comeback its
   * snoozed item still names, a celebrity's post after the user followed it. Archived ones are in it.
   * `snoozedAway`: found but snoozed away (a retried snooze finishes its work on them).
   */
  async findInView(user: UserRef, ids: readonly string[]): Promise<ViewLookup> {
    const lookupReader = this.deps.actionLookup;
    if (!lookupReader) throw new Error('the inbox view has no action lookup');
    const nowMs = this.deps.clock.nowMs();
    const unique = [...new Set(ids)];
    const [lookup, retractions] = await Promise.all([lookupReader.lookupForAction(user, unique, readerShard(user.userId, this.deps.feedShards)), this.retractionsOf(user, nowMs)]);
    const retracted = new RetractedIds(user, lookup.followed, retractions);
    const floors = new Map(lookup.followed.map((celebrity) => [celebrity.celebrityId, idLowerBoundAt(celebrity.followedAtMs)]));
    const arrived = idUpperBoundAt(nowMs);
    const candidates = new Map<string, ActionTarget>();
    for (const id of unique) {
      if (id > arrived) continue;
      const own = lookup.own.get(id);
      const post = own ? undefined : lookup.celebrityPosts.get(id);
      const target: ActionTarget | undefined = own ? { item: own } : post ? { item: post.item, source: post.authorId } : undefined;
      if (!target || isExpired(target.item, nowMs)) continue;
      if (target.source !== undefined) {
        const floor = floors.get(target.source);
        if (floor === undefined || id <= floor) continue;
      }
      const comeback = target.item.comeback;
      if (comeback ? retracted.hasComeback(comeback) : retracted.hasOf(id, target.source)) continue;
      candidates.set(id, target);
    }
    // A comeback shows only while its snoozed item's exception names it.
    const parents = [...candidates.values()].flatMap(({ item }) => (item.comeback && !lookup.state.exceptions.has(item.comeback.from) ? [item.comeback.from] : []));
    const exceptions = new Map(lookup.state.exceptions);
    if (parents.length > 0) for (const [id, exception] of await this.deps.readState.getExceptions(user, parents)) exceptions.set(id, exception);
    const state: ReadState = { ...lookup.state, exceptions };
    const inView = new Map<string, ActionTarget>();
    const snoozedAway = new Map<string, ActionTarget>();
    for (const [id, target] of candidates) {
      const comeback = target.item.comeback;
      if (comeback && exceptions.get(comeback.from)?.comebackId !== id) continue;
      const exception = exceptions.get(id);
      if (exception?.deleted) continue;
      if (exception?.snoozedUntil !== undefined) snoozedAway.set(id, target);
      else inView.set(id, target);
    }
    return { inView, snoozedAway, state };
  }

}
