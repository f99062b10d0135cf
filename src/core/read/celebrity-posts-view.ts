/**
 * Pages and counts of a user following many celebrities from the tenant's celebrity posts log: one
 * partition (the reader's shard) read newest first, the posts of the followed celebrities (after
 * followedAt, muted types left out) kept in memory. The cost follows how dense the followed posts
 * are in the log, not k; a scan that has not decided within its request budget gives up (undefined)
 * and the caller reads the feed heads instead.
 */
import { idLowerBoundAt } from '../model/ids.js';
import { mergeNewestFirst } from './merge.js';
import { isExpired, type StoredNotification } from '../model/notification.js';
import type { CelebrityPost, CelebrityPostsPage, CelebrityPostsReader } from '../ports/celebrity-posts.js';
import type { IdRange } from '../ports/inbox.js';
import { COUNT_CAP, tallyUnread, type ReadState } from '../model/read-state.js';
import { arrivedBefore } from './visibility.js';
import type { UserRef } from '../model/user.js';
import type { FollowedCelebrity } from '../model/followed-pack.js';

/** Above this many followed celebrities a read scans the celebrity posts log; at or below, ceil(k/100) <= 1 BatchGetItem of feed heads is cheaper. */
export const CELEBRITY_LOG_MIN_FOLLOWED = 100;
export interface CelebrityLogBudget {
  /** Log items a page read evaluates per request. */
  pageItems: number;
  /** Count index slot items in a count's first request (each next request reads 4x as many). */
  countSlots: number;
  /** Requests a scan may spend before it gives up for the feed heads (a sparse follower of a busy tenant). */
  maxRequests: number;
}

/**
 * A page of 20 at 25% density fits in one request; 16 slots of a tenant posting 2 per second hold
 * ~300 posts, 100 unread at 33% density (a quiet tenant's sparse slots: 16, 64, 256 slots).
 */
export const DEFAULT_CELEBRITY_LOG_BUDGET: CelebrityLogBudget = { pageItems: 100, countSlots: 16, maxRequests: 3 };

export interface CelebrityLogScope {
  log: CelebrityPostsReader;
  user: UserRef;
  /** The reader's shard of the log (the same as its feed shard). */
  shard: number;
  celebrities: readonly FollowedCelebrity[];
  muted: readonly string[];
  nowMs: number;
  inboxTtlDays: number;
  budget: CelebrityLogBudget;
  /** The followed share of the log this reader's last page scan saw: sizes the first request (a guess; a miss only costs a request). */
  density?: number;
  /** Told the followed share a page scan saw (when it evaluated enough posts to tell). */
  onDensity?: (density: number) => void;
}

/** A page's first log request reads wanted / density x this margin, so a random spread of the followed posts still fills it. */
const DENSITY_MARGIN = 1.5;
/** Posts a scan must evaluate before its followed share is worth remembering. */
const MIN_DENSITY_SAMPLE = 20;

/** Items of the page's first log request: the budget's page, or fewer when the reader's followed share of the log is known to be high. */
export function firstPageItems(budget: CelebrityLogBudget, wanted: number, density: number | undefined): number {
  if (density === undefined || density <= 0) return budget.pageItems;
  return Math.min(budget.pageItems, Math.max(wanted, Math.ceil((DENSITY_MARGIN * wanted) / density)));
}

export interface CelebrityLogPageRange {
  before?: string;
  since?: string;
  /** Items wanted (the page's limit + 1, for the cursor). */
  wanted: number;
  type?: string;
}

function maxId(...ids: (string | undefined)[]): string | undefined {
  let highest: string | undefined;
  for (const id of ids) if (id !== undefined && (highest === undefined || id > highest)) highest = id;
  return highest;
}

/** A followed celebrity's exclusive id floor (its followedAt), encoded on first use: a read meets ~100 authors, not k. */
class FollowedFloors {
  private readonly followedAtMs: Map<string, number>;
  private readonly encoded = new Map<string, string>();

  constructor(celebrities: readonly FollowedCelebrity[]) {
    this.followedAtMs = new Map(celebrities.map((celebrity) => [celebrity.celebrityId, celebrity.followedAtMs]));
  }

  /** The lowest floor (the earliest followedAt); undefined when nobody is followed. */
  lowest(): string | undefined {
    let earliest: number | undefined;
    for (const ms of this.followedAtMs.values()) if (earliest === undefined || ms < earliest) earliest = ms;
    return earliest === undefined ? undefined : idLowerBoundAt(earliest);
  }

  /** The author's floor; undefined when the author is not followed. */
  get(authorId: string): string | undefined {
    let floor = this.encoded.get(authorId);
    if (floor === undefined) {
      const ms = this.followedAtMs.get(authorId);
      if (ms === undefined) return undefined;
      floor = idLowerBoundAt(ms);
      this.encoded.set(authorId, floor);
    }
    return floor;
  }
}

/** Each followed celebrity's exclusive floor (followedAt) and the log's lower bound for this read. */
function floorsOf(scope: CelebrityLogScope, lower: string | undefined): { floors: FollowedFloors; after: string | undefined } {
  const floors = new FollowedFloors(scope.celebrities);
  const ttlFloor = idLowerBoundAt(scope.nowMs - scope.inboxTtlDays * 86_400_000);
  return { floors, after: maxId(lower, floors.lowest(), ttlFloor) };
}

/** The range of a page's first log request that is known before the followed list: the followed floors are not (the posts below them are dropped by their floor). */
export function prefetchRange(range: Pick<CelebrityLogPageRange, 'before' | 'since'>, nowMs: number, inboxTtlDays: number): IdRange {
  return { before: range.before, after: maxId(range.since, idLowerBoundAt(nowMs - inboxTtlDays * 86_400_000)) };
}

/**
 * A page's first log request sent before the followed list is known (so it travels with the read's
 * first round instead of after it), in `prefetchRange`: the caller passes it to pageFromCelebrityLog.
 * Rejections are kept for the caller; an unused prefetch is only a wasted request.
 */
export function prefetchFirstCelebrityLogPage(log: CelebrityPostsReader, user: UserRef, shard: number, range: IdRange, firstItems: number): Promise<CelebrityPostsPage<CelebrityPost>> {
  const iterator = log.scanPosts(user.tenantId, shard, range, firstItems, firstItems)[Symbol.asyncIterator]();
  const page = iterator.next().then(async (result) => {
    await iterator.return?.();
    return result.done === true ? { posts: [], more: false } : result.value;
  });
  page.catch(() => undefined);
  return page;
}

/**
 * The log pages of a page read: the prefetched first page (read down to the TTL only), then from its
 * last id down to `range.after`; or the whole scan when nothing was prefetched.
 */
async function* postsPages(scope: CelebrityLogScope, range: IdRange, firstItems: number, prefetched?: Promise<CelebrityPostsPage<CelebrityPost>>): AsyncGenerator<CelebrityPostsPage<CelebrityPost>> {
  const { tenantId } = scope.user;
  if (!prefetched) {
    yield* scope.log.scanPosts(tenantId, scope.shard, range, scope.budget.pageItems, firstItems);
    return;
  }
  const first = await prefetched;
  // Below the read's own lower bound (the lowest followedAt) nothing more is in range.
  const reachedFloor = first.scannedDownTo !== undefined && range.after !== undefined && first.scannedDownTo <= range.after;
  yield { ...first, more: first.more && !reachedFloor };
  if (!first.more || reachedFloor) return;
  // More in range but no id to continue below (a page that kept no item): the whole range again, nothing skipped.
  const before = first.scannedDownTo ?? range.before;
  yield* scope.log.scanPosts(tenantId, scope.shard, { before, after: range.after }, scope.budget.pageItems, scope.budget.pageItems);
}

/** The merged page (own + followed posts, newest first, at most `wanted`), or undefined past the budget; `prefetched`: its first log request, already sent. */
export async function pageFromCelebrityLog(
  scope: CelebrityLogScope,
  own: readonly StoredNotification[],
  range: CelebrityLogPageRange,
  prefetched?: Promise<CelebrityPostsPage<CelebrityPost>>,
): Promise<StoredNotification[] | undefined> {
  const { floors, after } = floorsOf(scope, range.since);
  const matched: StoredNotification[] = [];
  let requests = 0;
  let evaluated = 0;
  let followed = 0;
  const tellDensity = () => {
    if (evaluated >= MIN_DENSITY_SAMPLE) scope.onDensity?.(followed / evaluated);
  };
  // A type filter keeps fewer of the followed posts than the share tells: the budget's page then.
  const firstItems = firstPageItems(scope.budget, range.wanted, range.type === undefined ? scope.density : undefined);
  for await (const page of postsPages(scope, { before: range.before, after }, firstItems, prefetched)) {
    requests += 1;
    for (const { authorId, item } of page.posts) {
      // A prefetched page also holds posts below this read's lower bound: not part of the share.
      if (after !== undefined && item.id <= after) continue;
      evaluated += 1;
      const floor = floors.get(authorId);
      if (floor === undefined || item.id <= floor || isExpired(item, scope.nowMs) || scope.muted.includes(item.type)) continue;
      followed += 1;
      if (range.type === undefined || item.type === range.type) matched.push(item);
    }
    const merged = mergeNewestFirst([own, matched], range.wanted);
    // Decided once the page is full of ids above everything the log has left in range.
    const full = merged.length >= range.wanted && page.scannedDownTo !== undefined && merged[range.wanted - 1]!.id > page.scannedDownTo;
    if (full || !page.more) {
      tellDensity();
      return merged;
    }
    if (requests >= scope.budget.maxRequests) {
      tellDensity();
      return undefined;
    }
  }
  tellDensity();
  return mergeNewestFirst([own, matched], range.wanted);
}

/**
 * The ids counts weigh, from the own ids above the read mark (queried in parallel with the first index
 * request) and the followed posts above max(read mark, followedAt) from the count index, newest slots
 * first, stopping once both answers are capped or no unseen id can follow; undefined past the budget.
 * `gone`: ids the counts leave out though above the read mark (archived, deleted, retracted, not yet arrived).
 */
export async function idsFromCelebrityLog(
  scope: CelebrityLogScope,
  state: ReadState,
  ownIdsAboveReadMark: () => Promise<readonly string[]>,
  gone: (id: string) => boolean = () => false,
): Promise<Set<string> | undefined> {
  const { floors, after } = floorsOf(scope, state.readMark ?? undefined);
  const scan = scope.log.scanPostKeys(scope.user.tenantId, scope.shard, after, scope.budget.countSlots)[Symbol.asyncIterator]();
  const [ownIds, first] = await Promise.all([ownIdsAboveReadMark(), scan.next()]);
  const ids = new Set(ownIds);
  const arrived = arrivedBefore(scope.nowMs);
  let requests = 0;
  for (let next = first; next.done !== true; next = await scan.next()) {
    const page = next.value;
    requests += 1;
    for (const post of page.posts) {
      const floor = floors.get(post.authorId);
      if (floor === undefined || post.id <= floor || post.id >= arrived || isExpired(post, scope.nowMs) || scope.muted.includes(post.type)) continue;
      ids.add(post.id);
    }
    if (!page.more) break;
    const { unread, unseen } = tallyUnread(ids, state, gone);
    const seenMark = state.seenMark ?? undefined;
    const noUnseenLeft = seenMark !== undefined && page.scannedDownTo !== undefined && page.scannedDownTo <= seenMark;
    if (unread > COUNT_CAP && (unseen >= COUNT_CAP || noUnseenLeft)) break;
    if (requests >= scope.budget.maxRequests) {
      await scan.return?.();
      return undefined;
    }
  }
  await scan.return?.();
  return ids;
}
