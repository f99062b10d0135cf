/**
 * Unread and unseen counts of a user's inbox view, capped at COUNT_CAP: the ids above the read mark
 * from their own partition and the followed feeds (or the celebrity posts log's count index when the
 * user follows more than the threshold), and the ids marked unread at or below the read mark.
 */
import { idLowerBoundAt } from '../model/ids.js';
import { COUNT_CAP, countFromIds, isArchived, isRead, tallyUnread, unreadBelowMarkIsLive, type Counts, type ItemException, type ReadState } from '../model/read-state.js';
import type { UserRef } from '../model/user.js';
import { isExpired, type StoredNotification } from '../model/notification.js';
import type { InboxKey, InboxSource } from '../ports/inbox.js';
import { idsFromCelebrityLog } from './celebrity-posts-view.js';
import { compareBoundsDescending, feedCeiling, maxId, MAX_QUERIES_PER_WAVE, ownSourceOf, type FeedView, type InboxReadDeps, type InboxView } from './inbox-view.js';
import type { CelebrityLogReads } from './celebrity-log-reads.js';
import { RetractedIds } from './retracted-ids.js';
import { arrivedBefore, goneFromView } from './visibility.js';
import { nextCountsFloor, ownCountsBase } from '../model/counts-floor.js';

/** Counts of a tab: the types left out (e.g. every type outside a category). */
export interface CountsRequest {
  excludeTypes?: readonly string[];
}

export class InboxCounts {
  constructor(
    private readonly deps: InboxReadDeps,
    private readonly view: InboxView,
    private readonly celebrityLog: CelebrityLogReads,
  ) {}

  /**
   * Unread and unseen counts, capped. Round 1: the marks with the exceptions above the read mark,
   * the followed list, muted types (and the tenant's retractions, cached); round 2: own ids above the
   * read mark, the feed heads or the count index, and the exceptions of ids marked unread below the
   * mark; then only feeds whose head is above max(read mark, followedAt), newest head first, in waves
   * no larger than the count still missing to the cap. The own partition is listed from the counts
   * floor when it is above the read mark (counts-floor.ts), and an unfiltered count that listed it
   * all may move the floor up (one conditional write, rare).
   */
  async counts(user: UserRef, request: CountsRequest = {}): Promise<Counts> {
    const nowMs = this.deps.clock.nowMs();
    const ownSource = ownSourceOf(user);
    const [aboveMark, celebrities, mutedTypes, retractions] = await Promise.all([
      this.deps.readState.readAboveMark(user),
      this.deps.celebrities.listFollowedCelebrities(user),
      this.view.mutedTypesOf(user),
      this.view.retractionsOf(user, nowMs),
    ]);
    const tabExcluded = request.excludeTypes ?? [];
    // Feeds leave out muted types and the tab's; the own inbox only the tab's (it never got muted ones).
    const muted = [...new Set([...mutedTypes, ...tabExcluded])];
    const exceptions = new Map(aboveMark.exceptions);
    const state: ReadState = { ...aboveMark, exceptions };
    const retracted = new RetractedIds(user, celebrities, retractions);
    const arrived = arrivedBefore(nowMs);
    const readMark = state.readMark ?? undefined;
    const ownBase = ownCountsBase(state);
    const ttlFloor = idLowerBoundAt(nowMs - this.deps.inboxTtlDays * 86_400_000);
    const comebacks = new Map<string, NonNullable<InboxKey['comeback']>>();
    const goneKey = goneFromView({ state, retracted, nowMs });
    const gone = (id: string) => isArchived(id, state) || goneKey({ id, ...(comebacks.has(id) ? { comeback: comebacks.get(id)! } : {}) });
    const noteKeys = (keys: readonly InboxKey[]) => keys.map(({ id, comeback }) => (comeback && comebacks.set(id, comeback), id));
    let ownListing: { ids: string[]; complete: boolean } | undefined;
    const ownIdsAbove = async () => (ownListing = await this.ownIdsAbove(ownSource, ownBase, arrived, state, nowMs, tabExcluded, gone, noteKeys)).ids;
    const unreadBelowMark = this.namedBelowBase(user, state, exceptions, ttlFloor, nowMs, celebrities, muted, tabExcluded);
    const celebrityLog = this.celebrityLog.scope(user, celebrities, muted, nowMs);
    const fromCelebrityLog = celebrityLog && (await idsFromCelebrityLog(celebrityLog, state, ownIdsAbove, gone));
    let ids: Set<string>;
    if (fromCelebrityLog) ids = fromCelebrityLog;
    else {
      const [ownIds, unsortedFeeds] = await Promise.all([ownIdsAbove(), this.view.feedViews(user, celebrities, (floor) => maxId(readMark, floor))]);
      ids = new Set(ownIds);
      await this.addFeedIds(ids, unsortedFeeds, state, readMark, ttlFloor, muted, arrived, nowMs, gone);
    }
    for (const { id, comeback } of await unreadBelowMark) {
      ids.add(id);
      if (comeback) comebacks.set(id, comeback);
    }
    // The snoozed items the comebacks among them bring back decide whether they show.
    const parents = [...comebacks.values()].map(({ from }) => from).filter((id) => !exceptions.has(id));
    if (parents.length > 0) for (const [id, exception] of await this.deps.readState.getExceptions(user, parents)) exceptions.set(id, exception);
    if (tabExcluded.length === 0 && celebrities.length === 0 && ownListing?.complete) await this.advanceFloor(user, state, ownBase, ownListing.ids, gone, nowMs);
    return countFromIds(ids, state, COUNT_CAP, gone);
  }

  /** Moves the counts floor over what single reads left above it (counts-floor.ts); a lost race or a failed write only leaves it where it was. */
  private async advanceFloor(user: UserRef, state: ReadState, base: string | undefined, ownIds: readonly string[], gone: (id: string) => boolean, nowMs: number): Promise<void> {
    const advance = this.deps.readState.advanceCountsFloor;
    if (!advance) return;
    const next = nextCountsFloor(ownIds, state, gone, nowMs, this.deps.countsFloorMinStep);
    if (next === undefined || (base !== undefined && next <= base)) return;
    try {
      await advance.call(this.deps.readState, user, state.countsFloor ?? null, next);
    } catch {
      // The floor only saves reads: the next count tries again.
    }
  }

  /**
   * The own ids above the read mark, newest first: enough to decide the cap past the exceptions above
   * the mark, and more pages while what was read is mostly gone (archived, deleted, retracted above the mark).
   */
  private async ownIdsAbove(
    source: InboxSource,
    base: string | undefined,
    arrived: string,
    state: ReadState,
    nowMs: number,
    tabExcluded: readonly string[],
    gone: (id: string) => boolean,
    noteKeys: (keys: readonly InboxKey[]) => string[],
  ): Promise<{ ids: string[]; complete: boolean }> {
    const limit = COUNT_CAP + 1 + state.exceptions.size;
    const ids: string[] = [];
    let before = arrived;
    for (;;) {
      const page = noteKeys(await (tabExcluded.length > 0 ? this.deps.inbox.listIdsAbove(source, { after: base, before }, limit, nowMs, tabExcluded) : this.deps.inbox.listIdsAbove(source, { after: base, before }, limit, nowMs)));
      ids.push(...page);
      if (page.length < limit) return { ids, complete: true };
      const counted = ids.filter((id) => !isRead(id, state) && !gone(id)).length;
      if (counted > COUNT_CAP) return { ids, complete: false };
      before = page[page.length - 1]!;
    }
  }

  /**
   * The ids below what the lists read that the marks item names: marked unread at or below the read
   * mark, or countable again below the counts floor, whose exception still says unread; and the own
   * items that landed late under an id between the read mark and the floor (their markers come with
   * the marks; a marker's item is looked up, as a kill may have left the marker alone). One
   * BatchGetItem of their exceptions (and one of the late items, in parallel), none when there are
   * none. The source of a named id decides whether it is still in the view (a celebrity unfollowed, a
   * muted or other tab's type).
   */
  private async namedBelowBase(
    user: UserRef,
    state: ReadState,
    exceptions: Map<string, ItemException>,
    ttlFloor: string,
    nowMs: number,
    celebrities: readonly { celebrityId: string; followedAtMs: number }[],
    muted: readonly string[],
    tabExcluded: readonly string[],
  ): Promise<InboxKey[]> {
    const live = [...state.unreadBelowMark].filter(([id, version]) => id > ttlFloor && unreadBelowMarkIsLive(id, version, state)).map(([id]) => id);
    const base = ownCountsBase(state);
    const lateIds = [...(state.lateArrivals ?? [])].filter((id) => (state.readMark === null || id > state.readMark) && base !== undefined && id <= base && id > ttlFloor);
    if (live.length === 0 && lateIds.length === 0) return [];
    const own = ownSourceOf(user);
    const [found, lateItems] = await Promise.all([
      this.deps.readState.getExceptions(user, [...live, ...lateIds]),
      lateIds.length > 0 ? this.deps.inbox.getItems(lateIds.map((id) => ({ source: own, id }))) : new Map<string, StoredNotification>(),
    ]);
    const followed = new Map(celebrities.map((celebrity) => [celebrity.celebrityId, idLowerBoundAt(celebrity.followedAtMs)]));
    const named = new Set(live);
    const ids: InboxKey[] = [];
    for (const [id, item] of lateItems) {
      if (isExpired(item, nowMs) || tabExcluded.includes(item.type)) continue;
      ids.push({ id });
      const exception = found.get(id);
      if (exception) exceptions.set(id, exception);
    }
    for (const [id, exception] of found) {
      if (!named.has(id)) continue;
      exceptions.set(id, exception);
      if (tabExcluded.includes(exception.type)) continue;
      if (exception.source !== undefined) {
        const floor = followed.get(exception.source);
        if (floor === undefined || id <= floor || muted.includes(exception.type)) continue;
      }
      ids.push(exception.comeback ? { id, comeback: exception.comeback } : { id });
    }
    return ids;
  }

  /** The followed feeds' ids above max(read mark, followedAt): from the heads where they tell, else a Query per feed, in waves. */
  private async addFeedIds(ids: Set<string>, unsortedFeeds: FeedView[], state: ReadState, readMark: string | undefined, ttlFloor: string, muted: readonly string[], arrived: string, nowMs: number, gone: (id: string) => boolean): Promise<void> {
    // Without muted types (whose types a head does not tell), a feed's known ids count as they are;
    // a feed whose second id is below its lower bound holds nothing else above it: no query.
    const feeds: FeedView[] = [];
    for (const feed of unsortedFeeds.sort((a, b) => compareBoundsDescending(a.head, b.head))) {
      const lower = maxId(readMark, feed.floor);
      const inRange = (id: string | undefined): id is string => id !== undefined && id > ttlFloor && id < arrived && (lower === undefined || id > lower);
      if (muted.length === 0) for (const id of [feed.head, feed.previous]) if (inRange(id)) ids.add(id);
      const complete = muted.length === 0 && feed.head !== undefined && feed.previous !== undefined && !inRange(feed.previous);
      if (!complete) feeds.push(feed);
    }
    const seenMark = state.seenMark ?? undefined;
    const limit = COUNT_CAP + 1 + state.exceptions.size;
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
        wave.map(({ source, floor, head }) => {
          const range = { after: maxId(readMark, floor), before: feedCeiling(arrived, head) };
          return muted.length > 0 ? this.deps.inbox.listIdsAbove(source, range, limit, nowMs, muted) : this.deps.inbox.listIdsAbove(source, range, limit, nowMs);
        }),
      );
      for (const list of idLists) for (const { id } of list) ids.add(id);
    }
  }
}
