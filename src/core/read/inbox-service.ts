/**
 * The read side of the inbox: pages merged from the user's own partition and the feeds of the
 * celebrities they follow, counts above the marks, and the O(1) read/seen writes.
 */
import { countsFromPostsLog, DEFAULT_POSTS_LOG_BUDGET, firstPageItems, pageFromPostsLog, POSTS_LOG_MIN_FOLLOWED, prefetchFirstPostsPage, prefetchRange, type PostsLogBudget, type PostsLogScope } from './celebrity-posts-view.js';
import { encodeCursor, type InboxCursor, type InboxFilter } from './cursor.js';
import { readerShard } from '../model/feed-shards.js';
import { idLowerBoundAt, idUpperBoundAt } from '../model/ids.js';
import { PostsLogReaderMemory } from './posts-log-reader-memory.js';
import { RetractedIds } from './retracted-ids.js';
import { mergeNewestFirst } from './merge.js';
import { NotFoundError } from '../model/errors.js';
import { isExpired, type Notification, type StoredNotification } from '../model/notification.js';
import type { CelebrityPost, CelebrityPostsPage, CelebrityPostsReader } from '../ports/celebrity-posts.js';
import type { Clock } from '../ports/clock.js';
import type { FeedHeadsReader, FollowedCelebritiesReader, InboxReader, InboxSource, ReadStateListener, ReadStateStore, Retraction, RetractionsReader } from '../ports/inbox.js';
import {
  COUNT_CAP,
  countFromIdsAboveReadMark,
  countQueryLimit,
  tallyUnread,
  markUpTo,
  hasItemExceptions,
  isArchived,
  isHidden,
  isRead,
  presentNotification,
  type Counts,
  type ReadState,
} from '../model/read-state.js';
import type { MutedTypesReader } from '../ports/inbox.js';
import type { UserRef } from '../model/user.js';
import type { FollowedCelebrity } from '../model/followed-pack.js';

export interface InboxServiceDeps {
  inbox: InboxReader;
  celebrities: FollowedCelebritiesReader;
  /** Feed heads: without it every followed feed is queried (cost 1 Query per celebrity). */
  feedHeads?: FeedHeadsReader;
  /** The tenant's celebrity posts log, read instead of the feeds when the user follows more than `postsLogFromFollowed` celebrities. */
  celebrityPosts?: CelebrityPostsReader;
  /** Default POSTS_LOG_MIN_FOLLOWED. */
  postsLogFromFollowed?: number;
  /** Default DEFAULT_POSTS_LOG_BUDGET. */
  postsLogBudget?: Partial<PostsLogBudget>;
  readState: ReadStateStore;
  clock: Clock;
  cursorSecret: string;
  feedShards: number;
  inboxTtlDays: number;
  readStateListener?: ReadStateListener;
  /** The user's muted types: left out of celebrity feeds at read time (their own inbox never got them). */
  mutedTypes?: MutedTypesReader;
  /** The tenant's retracted events (cached): their notifications leave every list and count. */
  retractions?: RetractionsReader;
  /** The action link and buttons a notification shows (from its type's catalog entry), sanitized. */
  linksOf?: (item: StoredNotification) => Pick<Notification, 'actionUrl' | 'actions'>;
}

export interface InboxPageRequest {
  limit: number;
  cursor?: InboxCursor;
  /** Catch-up: only ids newer than this. */
  since?: string;
  type?: string;
  /** State and type filters; a cursor carries them (its filter wins). */
  filter?: InboxFilter;
}

/** Counts of a tab: the types left out (e.g. every type outside a category). */
export interface CountsRequest {
  excludeTypes?: readonly string[];
}

/** Raw pages scanned at most per filtered page; past it the page is short and its cursor continues the scan. */
const MAX_SCAN_ROUNDS = 8;

export interface InboxPage {
  items: Notification[];
  nextCursor: string | null;
}

interface ViewSource {
  source: InboxSource;
  /** Exclusive lower bound of this source's ids in the user's view (followedAt for feeds). */
  floor?: string;
}

interface FeedView extends ViewSource {
  /** The feed's newest id (from the celebrity's profile); undefined when unknown. */
  head?: string;
  /** The feed's second newest id ('0' = none); undefined when unknown. */
  previous?: string;
}

interface PageRange {
  before?: string;
  since?: string;
  wanted: number;
  type?: string;
  muted: readonly string[];
  nowMs: number;
}

function compareIdsDescending(a: string, b: string): number {
  return a === b ? 0 : a > b ? -1 : 1;
}

/** Feed queries sent at once in one wave of a read (latency without a burst of requests). */
const MAX_QUERIES_PER_WAVE = 16;

/** Descending order of upper bounds, an unknown (undefined) bound first. */
function compareBoundsDescending(a: string | undefined, b: string | undefined): number {
  if (a === b) return 0;
  if (a === undefined) return -1;
  if (b === undefined) return 1;
  return a > b ? -1 : 1;
}

function maxId(a: string | undefined, b: string | undefined): string | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return a > b ? a : b;
}

function isEmptyFilter(filter: InboxFilter): boolean {
  return filter.read === undefined && filter.archived === undefined && filter.types === undefined;
}

/**
 * What a page keeps: not deleted, snoozed or retracted, archived as asked (default: not archived),
 * read as asked, one of the types. Undefined when it would keep everything (the unfiltered path).
 */
function itemFilter(
  filter: InboxFilter,
  types: readonly string[] | undefined,
  queryType: string | undefined,
  state: ReadState,
  retracted: RetractedIds,
  nowMs: number,
): ((item: StoredNotification) => boolean) | undefined {
  const archived = filter.archived ?? false;
  const typeSet = types !== undefined && queryType === undefined ? new Set(types) : undefined;
  if (filter.read === undefined && !archived && typeSet === undefined && retracted.isEmpty && !hasItemExceptions(state)) return undefined;
  // A snoozed notification's comeback is written ahead, under an id of its return time: not arrived yet.
  const arrived = idUpperBoundAt(nowMs);
  return (item) =>
    item.id <= arrived &&
    !retracted.has(item.id) &&
    !isHidden(item.id, state) &&
    isArchived(item.id, state) === archived &&
    (filter.read === undefined || isRead(item.id, state) === filter.read) &&
    (typeSet === undefined || typeSet.has(item.type));
}

export class InboxService {
  /** The posts log readers this container has seen, with their followed share of the log. */
  private readonly postsLogReaders = new PostsLogReaderMemory();

  constructor(private readonly deps: InboxServiceDeps) {}

  /** The sources that make up a user's inbox view: own partition + one shard per followed celebrity. */
  private viewSources(user: UserRef, celebrities: readonly FollowedCelebrity[]): ViewSource[] {
    const shard = readerShard(user.userId, this.deps.feedShards);
    const feeds = celebrities.map<ViewSource>((celebrity) => ({
      source: { kind: 'feed', tenantId: user.tenantId, actorId: celebrity.celebrityId, shard },
      // Exclusive floor: ids whose time is at or after followedAt belong to the view.
      floor: idLowerBoundAt(celebrity.followedAtMs),
    }));
    return [{ source: { kind: 'own', tenantId: user.tenantId, userId: user.userId } }, ...feeds];
  }

  /**
   * The followed feeds with their newest id (one BatchGetItem of profiles per 100 celebrities), minus
   * those that hold nothing above `lowerOf(feed)`; a feed whose head is unknown is always kept.
   */
  private async feedViews(user: UserRef, celebrities: readonly FollowedCelebrity[], lowerOf: (floor: string | undefined) => string | undefined): Promise<FeedView[]> {
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

  /**
   * Newest-first page. Round 1 (parallel): followed list, own page, read state, muted types (and the
   * tenant's retractions, cached), and for a reader this container knows reads the posts log, that
   * log's first request (then a page is one round); above the threshold, the posts log scan; else
   * round 2: the followed celebrities' feed heads (ceil(k/100)
   * BatchGetItem); round 3: one BatchGetItem of the feed items the heads place in the page, with a
   * Query of each feed that may hold more there; feed queries in waves when the heads cannot decide.
   * With filters or per-item exceptions, items that do not pass are dropped and the scan goes on
   * below the last id (at most MAX_SCAN_ROUNDS rounds; then a short page whose cursor continues).
   */
  async listPage(user: UserRef, request: InboxPageRequest): Promise<InboxPage> {
    const nowMs = this.deps.clock.nowMs();
    const since = request.cursor?.since ?? request.since;
    const filter = request.cursor?.filter ?? request.filter ?? {};
    const types = filter.types ?? (request.type !== undefined ? [request.type] : undefined);
    // One type is filtered by DynamoDB; several are filtered here.
    const queryType = types?.length === 1 ? types[0] : undefined;
    const wanted = request.limit + 1;
    const ownSource: InboxSource = { kind: 'own', tenantId: user.tenantId, userId: user.userId };
    const pageQuery = (before: string | undefined, floor?: string, excludeTypes?: readonly string[]) => ({
      before,
      after: maxId(since, floor),
      limit: wanted,
      type: queryType,
      ...(excludeTypes && excludeTypes.length > 0 ? { excludeTypes } : {}),
      nowMs,
    });
    // A reader this container saw read the posts log: its first log request goes in round 1 too.
    let prefetched = this.prefetchPostsLog(user, { before: request.cursor?.before, since }, wanted, queryType, nowMs);
    const [celebrities, firstOwn, state, muted, retractions] = await Promise.all([
      this.deps.celebrities.listFollowedCelebrities(user),
      this.deps.inbox.listInboxPage(ownSource, pageQuery(request.cursor?.before)),
      this.deps.readState.getReadState(user),
      this.mutedTypesOf(user),
      this.retractionsOf(user, nowMs),
    ]);
    const postsLog = this.postsLogScope(user, celebrities, muted, nowMs);
    // Not (or no longer) above the threshold: no prefetch on this reader's next reads.
    if (!postsLog) this.postsLogReaders.forget(user);
    // Feed heads are read only when the posts log cannot answer (a read independent of k otherwise).
    let allFeedsLoad: Promise<FeedView[]> | undefined;
    const allFeeds = () => (allFeedsLoad ??= this.feedViews(user, celebrities, (floor) => maxId(since, floor)));
    const retracted = new RetractedIds(user, celebrities, retractions);
    const scan = async (before: string | undefined, own: StoredNotification[]): Promise<StoredNotification[]> => {
      // Upper bound of a feed's ids in this page; undefined = unbounded (head unknown, first page).
      const boundOf = ({ head }: FeedView): string | undefined => (head === undefined ? before : before !== undefined && head >= before ? before : head);
      // The prefetch is the first scan's first request (later rounds scan below it).
      const first = prefetched;
      prefetched = undefined;
      const fromPostsLog = postsLog && (await pageFromPostsLog(postsLog, own, { before, since, wanted, type: queryType }, first));
      if (fromPostsLog) return fromPostsLog;
      const feeds = (await allFeeds())
        .filter((feed) => {
          const bound = boundOf(feed);
          return bound === undefined || since === undefined || bound > since;
        })
        .sort((a, b) => compareBoundsDescending(boundOf(a), boundOf(b)));
      const queryFeed = ({ source, floor }: FeedView) => this.deps.inbox.listInboxPage(source, pageQuery(before, floor, muted));
      return (
        (await this.pageFromHeads(own, feeds, { before, since, wanted, type: queryType, muted, nowMs }, queryFeed)) ??
        (await this.pageFromFeedQueries(own, feeds, boundOf, wanted, queryFeed))
      );
    };
    const keeps = itemFilter(filter, types, queryType, state, retracted, nowMs);
    let raw = await scan(request.cursor?.before, firstOwn);
    let kept = keeps ? raw.filter(keeps) : raw;
    let rounds = 1;
    let scannedTo = raw[raw.length - 1]?.id;
    while (keeps && kept.length < wanted && raw.length >= wanted && rounds < MAX_SCAN_ROUNDS) {
      const before = raw[raw.length - 1]!.id;
      raw = await scan(before, await this.deps.inbox.listInboxPage(ownSource, pageQuery(before)));
      kept = [...kept, ...raw.filter(keeps)];
      scannedTo = raw[raw.length - 1]?.id ?? scannedTo;
      rounds += 1;
    }
    const page = kept.slice(0, request.limit);
    const last = page[page.length - 1];
    // Full page: continue after its last item; short page of an unfinished scan: after the last id scanned.
    const continueAfter = kept.length > request.limit ? last?.id : raw.length >= wanted ? scannedTo : undefined;
    const carriedFilter = isEmptyFilter(filter) ? undefined : filter;
    const nextCursor =
      continueAfter === undefined
        ? null
        : encodeCursor({ before: continueAfter, ...(since !== undefined ? { since } : {}), ...(carriedFilter ? { filter: carriedFilter } : {}) }, this.deps.cursorSecret);
    return { items: page.map((item) => this.present(item, state)), nextCursor };
  }

  private present(item: StoredNotification, state: ReadState): Notification {
    const links = this.deps.linksOf?.(item);
    return links && (links.actionUrl !== undefined || links.actions !== undefined) ? { ...presentNotification(item, state), ...links } : presentNotification(item, state);
  }

  /** The tenant's retractions (none without a reader). */
  private async retractionsOf(user: UserRef, nowMs: number): Promise<readonly Retraction[]> {
    return this.deps.retractions ? this.deps.retractions.retractionsOf(user.tenantId, nowMs) : [];
  }

  /**
   * The page from the feeds' two newest ids: a feed whose second id falls outside the page is
   * decided by them (nothing else of it can be in the page), its items in the page come from ONE
   * BatchGetItem; a feed whose second id is in the page may hold more there and is queried (same
   * round). Undefined, for the wave path to decide, when a head is unknown or a fetched item is
   * filtered out (muted, another type, expired).
   */
  private async pageFromHeads(
    own: StoredNotification[],
    feeds: readonly FeedView[],
    range: PageRange,
    query: (feed: FeedView) => Promise<StoredNotification[]>,
  ): Promise<StoredNotification[] | undefined> {
    if (feeds.length === 0) return undefined;
    const known: { id: string; feed: FeedView; second: boolean }[] = [];
    for (const feed of feeds) {
      if (feed.head === undefined || feed.previous === undefined) return undefined;
      // Both at or above the cursor: what the feed holds below it is unknown.
      if (range.before !== undefined && feed.previous >= range.before) return undefined;
      const lower = maxId(range.since, feed.floor);
      for (const [id, second] of [[feed.head, false], [feed.previous, true]] as const) {
        if ((lower === undefined || id > lower) && (range.before === undefined || id < range.before)) known.push({ id, feed, second });
      }
    }
    const inPage = new Set([...own.map((item) => item.id), ...known.map(({ id }) => id)].sort(compareIdsDescending).slice(0, range.wanted));
    const undecided = new Set(known.filter(({ id, second }) => second && inPage.has(id)).map(({ feed }) => feed));
    if (undecided.size > MAX_QUERIES_PER_WAVE) return undefined;
    const fetch = known.filter(({ id, feed }) => inPage.has(id) && !undecided.has(feed));
    const [items, queried] = await Promise.all([
      fetch.length > 0 ? this.deps.inbox.getItems(fetch.map(({ feed, id }) => ({ source: feed.source, id }))) : new Map<string, StoredNotification>(),
      Promise.all([...undecided].map(query)),
    ]);
    // The page was placed with the undecided feeds' known ids: each must have come back (not filtered out).
    const returned = new Set(queried.flat().map((item) => item.id));
    if (known.some(({ id, feed }) => undecided.has(feed) && inPage.has(id) && !returned.has(id))) return undefined;
    const fetched: StoredNotification[] = [];
    for (const { id } of fetch) {
      const item = items.get(id);
      if (!item || isExpired(item, range.nowMs) || (range.type !== undefined && item.type !== range.type) || range.muted.includes(item.type)) return undefined;
      fetched.push(item);
    }
    return mergeNewestFirst([own, fetched.sort((a, b) => compareIdsDescending(a.id, b.id)), ...queried], range.wanted);
  }

  /**
   * Feed queries in waves, newest bound first, only while a feed can still reach the page (its bound
   * above the (limit+1)-th id merged so far). Each wave holds only feeds sure to contribute (their
   * head enters the page whatever the earlier feeds of the wave return), so with known heads no
   * query is wasted.
   */
  private async pageFromFeedQueries(
    own: StoredNotification[],
    feeds: readonly FeedView[],
    boundOf: (feed: FeedView) => string | undefined,
    wanted: number,
    query: (feed: FeedView) => Promise<StoredNotification[]>,
  ): Promise<StoredNotification[]> {
    const lists: StoredNotification[][] = [own];
    let merged = mergeNewestFirst(lists, wanted);
    let next = 0;
    while (next < feeds.length) {
      const threshold = merged.length >= wanted ? merged[wanted - 1]!.id : undefined;
      const wave: FeedView[] = [];
      for (let index = next; index < feeds.length && wave.length < MAX_QUERIES_PER_WAVE; index += 1) {
        const bound = boundOf(feeds[index]!);
        if (threshold !== undefined && bound !== undefined && bound <= threshold) break;
        const mergedAbove = bound === undefined ? 0 : merged.filter((item) => item.id > bound).length;
        if (wave.length > 0 && mergedAbove + wave.length >= wanted) break;
        wave.push(feeds[index]!);
      }
      if (wave.length === 0) break;
      lists.push(...(await Promise.all(wave.map(query))));
      merged = mergeNewestFirst(lists, wanted);
      next += wave.length;
    }
    return merged;
  }

  /**
   * Unread and unseen counts, capped. Round 1: read state, followed list, muted types; round 2: own
   * ids above the read mark and the feed heads; then only feeds whose head is above max(read mark,
   * followedAt), newest head first, in waves no larger than the count still missing to the cap.
   */
  async counts(user: UserRef, request: CountsRequest = {}): Promise<Counts> {
    const nowMs = this.deps.clock.nowMs();
    const ownSource: InboxSource = { kind: 'own', tenantId: user.tenantId, userId: user.userId };
    const [state, celebrities, mutedTypes, retractions] = await Promise.all([
      this.deps.readState.getReadState(user),
      this.deps.celebrities.listFollowedCelebrities(user),
      this.mutedTypesOf(user),
      this.retractionsOf(user, nowMs),
    ]);
    const tabExcluded = request.excludeTypes ?? [];
    // Feeds leave out muted types and the tab's; the own inbox only the tab's (it never got muted ones).
    const muted = [...new Set([...mutedTypes, ...tabExcluded])];
    const retracted = new RetractedIds(user, celebrities, retractions);
    const arrived = idUpperBoundAt(nowMs);
    const gone = (id: string) => id > arrived || retracted.has(id) || isHidden(id, state) || isArchived(id, state);
    const limit = countQueryLimit(state) + retracted.ownCount;
    const readMark = state.readMark ?? undefined;
    const postsLog = this.postsLogScope(user, celebrities, muted, nowMs);
    const ownUnreadIds = () =>
      tabExcluded.length > 0 ? this.deps.inbox.listUnreadIdsAbove(ownSource, readMark, limit, nowMs, tabExcluded) : this.deps.inbox.listUnreadIdsAbove(ownSource, readMark, limit, nowMs);
    const fromPostsLog = postsLog && (await countsFromPostsLog(postsLog, state, ownUnreadIds, gone));
    if (fromPostsLog) return fromPostsLog;
    const [ownIds, unsortedFeeds] = await Promise.all([
      ownUnreadIds(),
      this.feedViews(user, celebrities, (floor) => maxId(readMark, floor)),
    ]);
    // Without muted types (whose types a head does not tell), a feed's known ids count as they are;
    // a feed whose second id is below its lower bound holds nothing else above it: no query.
    const ttlFloor = idLowerBoundAt(nowMs - this.deps.inboxTtlDays * 86_400_000);
    const ids = new Set(ownIds);
    // Unread exceptions below the read mark count too (their type is kept with them).
    for (const [id, item] of state.itemStates ?? []) {
      if (item.unreadAt !== undefined && id > ttlFloor && (readMark === undefined || id <= readMark) && !tabExcluded.includes(item.type ?? '')) ids.add(id);
    }
    const feeds: FeedView[] = [];
    for (const feed of unsortedFeeds.sort((a, b) => compareBoundsDescending(a.head, b.head))) {
      const lower = maxId(readMark, feed.floor);
      const inRange = (id: string | undefined): id is string => id !== undefined && id > ttlFloor && (lower === undefined || id > lower);
      if (muted.length === 0) for (const id of [feed.head, feed.previous]) if (inRange(id)) ids.add(id);
      const complete = muted.length === 0 && feed.head !== undefined && feed.previous !== undefined && !inRange(feed.previous);
      if (!complete) feeds.push(feed);
    }
    const seenMark = state.seenMark ?? undefined;
    let next = 0;
    while (next < feeds.length) {
      const { unread, unseen } = tallyUnread(ids, state, gone);
      const needUnread = unread <= COUNT_CAP;
      if (!needUnread && unseen >= COUNT_CAP) break;
      // Once the unread count is capped, only feeds with ids above the seen mark can still change an answer.
      const useful = (feed: FeedView) => needUnread || feed.head === undefined || seenMark === undefined || feed.head > seenMark;
      const waveSize = Math.min(MAX_QUERIES_PER_WAVE, needUnread ? COUNT_CAP + 1 - unread : COUNT_CAP - unseen);
      const wave: FeedView[] = [];
      while (next < feeds.length && wave.length < waveSize) {
        const feed = feeds[next]!;
        next += 1;
        if (useful(feed)) wave.push(feed);
      }
      const idLists = await Promise.all(
        wave.map(({ source, floor }) =>
          muted.length > 0
            ? this.deps.inbox.listUnreadIdsAbove(source, maxId(readMark, floor), limit, nowMs, muted)
            : this.deps.inbox.listUnreadIdsAbove(source, maxId(readMark, floor), limit, nowMs),
        ),
      );
      for (const list of idLists) for (const id of list) ids.add(id);
    }
    return countFromIdsAboveReadMark(ids, state, COUNT_CAP, gone);
  }

  /**
   * The first log request of a page of a reader whose last page scan (in this container) read the
   * posts log: sent with the read's first round, so a page is one round trip instead of two. A
   * reader who no longer follows enough wastes it once (then is forgotten).
   */
  private prefetchPostsLog(user: UserRef, range: { before?: string; since?: string }, wanted: number, type: string | undefined, nowMs: number): Promise<CelebrityPostsPage<CelebrityPost>> | undefined {
    const log = this.deps.celebrityPosts;
    const density = this.postsLogReaders.densityOf(user);
    if (!log || density === undefined) return undefined;
    const firstItems = firstPageItems(this.postsLogBudget(), wanted, type === undefined ? density : undefined);
    return prefetchFirstPostsPage(log, user, readerShard(user.userId, this.deps.feedShards), prefetchRange(range, nowMs, this.deps.inboxTtlDays), firstItems);
  }

  private postsLogBudget(): PostsLogBudget {
    return { ...DEFAULT_POSTS_LOG_BUDGET, ...this.deps.postsLogBudget };
  }

  /** The celebrity posts log's view of this read when the user follows more than the threshold; undefined = read the feeds. */
  private postsLogScope(user: UserRef, celebrities: readonly FollowedCelebrity[], muted: readonly string[], nowMs: number): PostsLogScope | undefined {
    const log = this.deps.celebrityPosts;
    if (!log || celebrities.length <= (this.deps.postsLogFromFollowed ?? POSTS_LOG_MIN_FOLLOWED)) return undefined;
    const budget = this.postsLogBudget();
    const density = this.postsLogReaders.densityOf(user);
    const onDensity = (seen: number) => this.postsLogReaders.remember(user, seen);
    return { log, user, shard: readerShard(user.userId, this.deps.feedShards), celebrities, muted, nowMs, inboxTtlDays: this.deps.inboxTtlDays, budget, onDensity, ...(density !== undefined ? { density } : {}) };
  }

  /** Muted types apply to feeds only; none without a reader. */
  private async mutedTypesOf(user: UserRef): Promise<readonly string[]> {
    return this.deps.mutedTypes ? this.deps.mutedTypes.mutedTypesOf(user) : [];
  }

  /**
   * O(1): one conditional write of the read mark, however many notifications are unread. `upTo` is
   * the newest id the client rendered: the mark covers exactly what was shown, never more than now.
   */
  async markAllRead(user: UserRef, upTo?: string): Promise<{ readAt: string }> {
    const nowMs = this.deps.clock.nowMs();
    const { mark, atIso } = markUpTo(nowMs, upTo);
    // Stamped with the write time: an unread exception older than it is read again.
    const result = await this.deps.readState.advanceReadMark(user, mark, atIso, nowMs);
    await this.deps.readStateListener?.readStateChanged(user);
    return result;
  }

  /** O(1): one conditional write of the seen mark (up to `upTo`, never past now); clears the badge, marks nothing read. */
  async markAllSeen(user: UserRef, upTo?: string): Promise<{ seenAt: string }> {
    const { mark, atIso } = markUpTo(this.deps.clock.nowMs(), upTo);
    const result = await this.deps.readState.advanceSeenMark(user, mark, atIso);
    await this.deps.readStateListener?.readStateChanged(user);
    return result;
  }

  /** Records a single read; NotFoundError when the id is not in the user's inbox view. */
  async markOneRead(user: UserRef, id: string): Promise<void> {
    const nowMs = this.deps.clock.nowMs();
    const found = await this.findInView(user, [id]);
    if (!found.has(id)) throw new NotFoundError(`notification ${id} is not in your inbox`);
    const expiresAt = Math.ceil(nowMs / 1000) + this.deps.inboxTtlDays * 86_400;
    await this.deps.readState.recordSingleRead(user, id, expiresAt, nowMs);
    await this.deps.readStateListener?.readStateChanged(user);
  }

  /**
   * The ids that are in the user's inbox view, with their items: one BatchGetItem of the own
   * partition per 100 ids, then (for ids not found there) of the followed feeds whose floor is below
   * each id, after one Query of the followed list. Expired items are not in the view.
   */
  async findInView(user: UserRef, ids: readonly string[]): Promise<Map<string, StoredNotification>> {
    const nowMs = this.deps.clock.nowMs();
    const own: InboxSource = { kind: 'own', tenantId: user.tenantId, userId: user.userId };
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
