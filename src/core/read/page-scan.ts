/**
 * A page of the inbox, newest first, merged from the user's own partition and the celebrity feeds
 * they follow by one of three strategies (docs/read-path.md): the celebrity posts log when the user
 * follows more than the threshold, else the feeds' two newest ids (feed heads), else feed queries in
 * waves. Filters and per-item exceptions drop items and the scan goes on below the last id.
 */
import type { StoredNotification, Notification } from '../model/notification.js';
import { isExpired } from '../model/notification.js';
import { isArchived, isRead, presentNotification, type ReadState } from '../model/read-state.js';
import { arrivedBefore, goneFromView } from './visibility.js';
import type { UserRef } from '../model/user.js';
import { pageFromCelebrityLog } from './celebrity-posts-view.js';
import { encodeCursor, type InboxCursor, type InboxFilter } from './cursor.js';
import { compareBoundsDescending, compareIdsDescending, feedCeiling, maxId, MAX_QUERIES_PER_WAVE, ownSourceOf, type FeedView, type InboxReadDeps, type InboxView } from './inbox-view.js';
import { mergeNewestFirst } from './merge.js';
import type { CelebrityLogReads } from './celebrity-log-reads.js';
import { RetractedIds } from './retracted-ids.js';

export interface InboxPageRequest {
  limit: number;
  cursor?: InboxCursor;
  /** Catch-up: only ids newer than this. */
  since?: string;
  type?: string;
  /** State and type filters; a cursor carries them (its filter wins). */
  filter?: InboxFilter;
}

export interface InboxPage {
  items: Notification[];
  nextCursor: string | null;
}

/** Raw pages scanned at most per filtered page; past it the page is short and its cursor continues the scan. */
const MAX_SCAN_ROUNDS = 8;

interface PageRange {
  before?: string;
  since?: string;
  wanted: number;
  type?: string;
  muted: readonly string[];
  nowMs: number;
}

function isEmptyFilter(filter: InboxFilter): boolean {
  return filter.read === undefined && filter.archived === undefined && filter.types === undefined;
}

/** What a page keeps: in the view (not gone), archived as asked (default: not archived), read as asked, one of the types. */
function itemFilter(filter: InboxFilter, types: readonly string[] | undefined, queryType: string | undefined, state: ReadState, gone: (item: StoredNotification) => boolean): (item: StoredNotification) => boolean {
  const archived = filter.archived ?? false;
  const typeSet = types !== undefined && queryType === undefined ? new Set(types) : undefined;
  return (item) => !gone(item) && isArchived(item.id, state) === archived && (filter.read === undefined || isRead(item.id, state) === filter.read) && (typeSet === undefined || typeSet.has(item.type));
}

/** Exceptions read with the marks for a page (the newest below its start); a page that scans further reads the rest of its range. */
const EXCEPTIONS_WINDOW = 50;

export class InboxPages {
  constructor(
    private readonly deps: InboxReadDeps,
    private readonly view: InboxView,
    private readonly celebrityLog: CelebrityLogReads,
  ) {}

  /**
   * Newest-first page. Round 1 (parallel): followed list, own page, read state, muted types (and the
   * tenant's retractions, cached), and for a reader this container knows reads the celebrity posts log, that
   * log's first request (then a page is one round); above the threshold, the celebrity posts log scan; else
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
    const ownSource = ownSourceOf(user);
    // Nothing that has not arrived yet (a snooze comeback is written ahead under an id of its return).
    const arrived = arrivedBefore(nowMs);
    const start = request.cursor?.before !== undefined && request.cursor.before < arrived ? request.cursor.before : arrived;
    const pageQuery = (before: string, floor?: string, excludeTypes?: readonly string[]) => ({
      before,
      after: maxId(since, floor),
      limit: wanted,
      type: queryType,
      ...(excludeTypes && excludeTypes.length > 0 ? { excludeTypes } : {}),
      nowMs,
    });
    // A reader this container saw read the celebrity posts log: its first log request goes in round 1 too.
    let prefetched = this.celebrityLog.prefetch(user, { before: start, since }, wanted, queryType, nowMs);
    const [celebrities, firstOwn, window, muted, retractions] = await Promise.all([
      this.deps.celebrities.listFollowedCelebrities(user),
      this.deps.inbox.listInboxPage(ownSource, pageQuery(start)),
      this.deps.readState.readWindow(user, request.cursor?.before, EXCEPTIONS_WINDOW),
      this.view.mutedTypesOf(user),
      this.view.retractionsOf(user, nowMs),
    ]);
    const celebrityLog = this.celebrityLog.scope(user, celebrities, muted, nowMs);
    // Not (or no longer) above the threshold: no prefetch on this reader's next reads.
    if (!celebrityLog) this.celebrityLog.forget(user);
    // Feed heads are read only when the celebrity posts log cannot answer (a read independent of k otherwise).
    let allFeedsLoad: Promise<FeedView[]> | undefined;
    const allFeeds = () => (allFeedsLoad ??= this.view.feedViews(user, celebrities, (floor) => maxId(since, floor)));
    const scan = async (before: string, own: StoredNotification[]): Promise<StoredNotification[]> => {
      // Upper bound of a feed's ids in this page.
      const boundOf = ({ head }: FeedView): string => (head === undefined || head >= before ? before : head);
      // The prefetch is the first scan's first request (later rounds scan below it).
      const first = prefetched;
      prefetched = undefined;
      const fromCelebrityLog = celebrityLog && (await pageFromCelebrityLog(celebrityLog, own, { before, since, wanted, type: queryType }, first));
      if (fromCelebrityLog) return fromCelebrityLog;
      const feeds = (await allFeeds()).filter((feed) => since === undefined || boundOf(feed) > since).sort((a, b) => compareBoundsDescending(boundOf(a), boundOf(b)));
      const queryFeed = ({ source, floor, head }: FeedView) => this.deps.inbox.listInboxPage(source, pageQuery(feedCeiling(before, head), floor, muted));
      return (
        (await this.pageFromHeads(own, feeds, { before, since, wanted, type: queryType, muted, nowMs }, queryFeed)) ??
        (await this.pageFromFeedQueries(own, feeds, boundOf, wanted, queryFeed))
      );
    };
    const exceptions = new Map(window.state.exceptions);
    const state: ReadState = { ...window.state, exceptions };
    let exceptionsFrom = window.exceptionsFrom;
    /** The exceptions of a scanned range (below what the window covered) and of the items the comebacks in it bring back. */
    const loadExceptionsOf = async (raw: readonly StoredNotification[]) => {
      const lowest = raw[raw.length - 1]?.id;
      const parents = raw.flatMap(({ comeback }) => (comeback && !exceptions.has(comeback.from) && (exceptionsFrom === undefined ? false : comeback.from < exceptionsFrom) ? [comeback.from] : []));
      const [range, parentExceptions] = await Promise.all([
        lowest !== undefined && exceptionsFrom !== undefined && lowest < exceptionsFrom ? this.deps.readState.listExceptions(user, lowest, exceptionsFrom) : undefined,
        parents.length > 0 ? this.deps.readState.getExceptions(user, parents) : undefined,
      ]);
      for (const [id, exception] of [...(range ?? []), ...(parentExceptions ?? [])]) exceptions.set(id, exception);
      if (range) exceptionsFrom = lowest;
    };
    const retracted = new RetractedIds(user, celebrities, retractions);
    const keeps = itemFilter(filter, types, queryType, state, goneFromView({ state, retracted, nowMs }));
    let raw = await scan(start, firstOwn);
    await loadExceptionsOf(raw);
    let kept = raw.filter(keeps);
    let rounds = 1;
    let scannedTo = raw[raw.length - 1]?.id;
    while (kept.length < wanted && raw.length >= wanted && rounds < MAX_SCAN_ROUNDS) {
      const before = raw[raw.length - 1]!.id;
      raw = await scan(before, await this.deps.inbox.listInboxPage(ownSource, pageQuery(before)));
      await loadExceptionsOf(raw);
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
}
