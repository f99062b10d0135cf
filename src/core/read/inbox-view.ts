/**
 * A user's inbox view: the sources it is merged from (their own partition and one shard of each
 * followed celebrity's feed, from followedAt on), what it leaves out (muted types on feeds, the
 * tenant's retracted events), and which ids are in it (`findInView`, for the per-item writes).
 */
import { idLowerBoundAt } from '../model/ids.js';
import { readerShard } from '../model/feed-shards.js';
import type { FollowedCelebrity } from '../model/followed-pack.js';
import { isExpired, type Notification, type StoredNotification } from '../model/notification.js';
import type { UserRef } from '../model/user.js';
import type { CelebrityPostsReader } from '../ports/celebrity-posts.js';
import type { Clock } from '../ports/clock.js';
import type { FeedHeadsReader, FollowedCelebritiesReader, InboxReader, InboxSource, MutedTypesReader, ReadStateStore, Retraction, RetractionsReader } from '../ports/inbox.js';
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
  readState: Pick<ReadStateStore, 'getReadState'>;
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
   * The ids that are in the user's inbox view, with their items: one BatchGetItem of the own
   * partition per 100 ids, then (for ids not found there) of the followed feeds whose floor is below
   * each id, after one Query of the followed list. Expired items are not in the view.
   */
  async findInView(user: UserRef, ids: readonly string[]): Promise<Map<string, StoredNotification>> {
    const nowMs = this.deps.clock.nowMs();
    const own = ownSourceOf(user);
    const found = new Map<string, StoredNotification>();
    const unique = [...new Set(ids)];
    if (unique.length === 1) {
      // One id: the same requests as the single read always made (BatchGetItem that stops at the first hit).
      const id = unique[0]!;
      let item = await this.deps.inbox.findNotification([own], id, nowMs);
      if (!item) {
        const visibleFeeds = await this.visibleFeedsOf(user, id);
        if (visibleFeeds.length > 0) item = await this.deps.inbox.findNotification(visibleFeeds, id, nowMs);
      }
      if (item) found.set(id, item);
      return found;
    }
    const ownItems = await this.deps.inbox.getItems(unique.map((id) => ({ source: own, id })));
    for (const [id, item] of ownItems) if (!isExpired(item, nowMs)) found.set(id, item);
    const missing = unique.filter((id) => !found.has(id));
    if (missing.length === 0) return found;
    const celebrities = await this.deps.celebrities.listFollowedCelebrities(user);
    const feeds = this.viewSources(user, celebrities).slice(1);
    const refs = missing.flatMap((id) => feeds.filter(({ floor }) => floor === undefined || id > floor).map(({ source }) => ({ source, id })));
    if (refs.length === 0) return found;
    const feedItems = await this.deps.inbox.getItems(refs);
    for (const { id } of refs) {
      const item = feedItems.get(id);
      if (item && !isExpired(item, nowMs) && !found.has(id)) found.set(id, item);
    }
    return found;
  }

  private async visibleFeedsOf(user: UserRef, id: string): Promise<InboxSource[]> {
    const celebrities = await this.deps.celebrities.listFollowedCelebrities(user);
    return this.viewSources(user, celebrities)
      .slice(1)
      .filter(({ floor }) => floor === undefined || id > floor)
      .map(({ source }) => source);
  }
}
