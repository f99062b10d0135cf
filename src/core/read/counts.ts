/**
 * Unread and unseen counts of a user's inbox view, capped at COUNT_CAP: ids above the read mark
 * (and unread exceptions below it) from their own partition and the followed feeds, or from the
 * celebrity posts log's count index when the user follows more than the threshold.
 */
import { idLowerBoundAt, idUpperBoundAt } from '../model/ids.js';
import { COUNT_CAP, countFromIdsAboveReadMark, countQueryLimit, isArchived, isHidden, tallyUnread, type Counts } from '../model/read-state.js';
import type { UserRef } from '../model/user.js';
import { countsFromCelebrityLog } from './celebrity-posts-view.js';
import { compareBoundsDescending, maxId, MAX_QUERIES_PER_WAVE, ownSourceOf, type FeedView, type InboxReadDeps, type InboxView } from './inbox-view.js';
import type { CelebrityLogReads } from './celebrity-log-reads.js';
import { RetractedIds } from './retracted-ids.js';

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
   * Unread and unseen counts, capped. Round 1: read state, followed list, muted types; round 2: own
   * ids above the read mark and the feed heads; then only feeds whose head is above max(read mark,
   * followedAt), newest head first, in waves no larger than the count still missing to the cap.
   */
  async counts(user: UserRef, request: CountsRequest = {}): Promise<Counts> {
    const nowMs = this.deps.clock.nowMs();
    const ownSource = ownSourceOf(user);
    const [state, celebrities, mutedTypes, retractions] = await Promise.all([
      this.deps.readState.getReadState(user),
      this.deps.celebrities.listFollowedCelebrities(user),
      this.view.mutedTypesOf(user),
      this.view.retractionsOf(user, nowMs),
    ]);
    const tabExcluded = request.excludeTypes ?? [];
    // Feeds leave out muted types and the tab's; the own inbox only the tab's (it never got muted ones).
    const muted = [...new Set([...mutedTypes, ...tabExcluded])];
    const retracted = new RetractedIds(user, celebrities, retractions);
    const arrived = idUpperBoundAt(nowMs);
    const gone = (id: string) => id > arrived || retracted.has(id) || isHidden(id, state) || isArchived(id, state);
    const limit = countQueryLimit(state) + retracted.ownCount;
    const readMark = state.readMark ?? undefined;
    const celebrityLog = this.celebrityLog.scope(user, celebrities, muted, nowMs);
    const ownUnreadIds = () =>
      tabExcluded.length > 0 ? this.deps.inbox.listUnreadIdsAbove(ownSource, readMark, limit, nowMs, tabExcluded) : this.deps.inbox.listUnreadIdsAbove(ownSource, readMark, limit, nowMs);
    const fromCelebrityLog = celebrityLog && (await countsFromCelebrityLog(celebrityLog, state, ownUnreadIds, gone));
    if (fromCelebrityLog) return fromCelebrityLog;
    const [ownIds, unsortedFeeds] = await Promise.all([
      ownUnreadIds(),
      this.view.feedViews(user, celebrities, (floor) => maxId(readMark, floor)),
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
}
