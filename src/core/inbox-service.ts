/**
 * The read side of the inbox: pages merged from the user's own partition and the feeds of the
 * celebrities they follow, counts above the marks, and the O(1) read/seen writes.
 */
import { encodeCursor, type InboxCursor } from './cursor.js';
import { readerShard } from './feed-shards.js';
import { idLowerBoundAt } from './ids.js';
import { mergeNewestFirst } from './merge.js';
import { NotFoundError } from './errors.js';
import type { Notification } from './notification.js';
import type { Clock } from './ports/clock.js';
import type { FollowedCelebritiesReader, FollowedCelebrity, InboxReader, InboxSource, ReadStateListener, ReadStateStore, UserRef } from './ports/inbox.js';
import {
  countFromIdsAboveReadMark,
  countQueryLimit,
  markUpTo,
  presentNotification,
  type Counts,
} from './read-state.js';
import type { MutedTypesReader } from './ports/inbox.js';

export interface InboxServiceDeps {
  inbox: InboxReader;
  celebrities: FollowedCelebritiesReader;
  readState: ReadStateStore;
  clock: Clock;
  cursorSecret: string;
  feedShards: number;
  inboxTtlDays: number;
  readStateListener?: ReadStateListener;
  /** The user's muted types: left out of celebrity feeds at read time (their own inbox never got them). */
  mutedTypes?: MutedTypesReader;
}

export interface InboxPageRequest {
  limit: number;
  cursor?: InboxCursor;
  /** Catch-up: only ids newer than this. */
  since?: string;
  type?: string;
}

export interface InboxPage {
  items: Notification[];
  nextCursor: string | null;
}

interface ViewSource {
  source: InboxSource;
  /** Exclusive lower bound of this source's ids in the user's view (followedAt for feeds). */
  floor?: string;
}

function maxId(a: string | undefined, b: string | undefined): string | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return a > b ? a : b;
}

export class InboxService {
  constructor(private readonly deps: InboxServiceDeps) {}

  /** The sources that make up a user's inbox view: own partition + one shard per followed celebrity. */
  private viewSources(user: UserRef, celebrities: readonly FollowedCelebrity[]): ViewSource[] {
    const shard = readerShard(user.userId, this.deps.feedShards);
    const feeds = celebrities.map<ViewSource>((celebrity) => ({
      source: { kind: 'feed', tenantId: user.tenantId, actorId: celebrity.celebrityId, shard },
      // Exclusive floor: ids whose time is at or after followedAt belong to the view.
      floor: idLowerBoundAt(Date.parse(celebrity.followedAt)),
    }));
    return [{ source: { kind: 'own', tenantId: user.tenantId, userId: user.userId } }, ...feeds];
  }

  /** Newest-first page: 1 query for the celebrity list, 1 for the read state, 1 own + 1 per celebrity. */
  async listPage(user: UserRef, request: InboxPageRequest): Promise<InboxPage> {
    const nowMs = this.deps.clock.nowMs();
    const since = request.cursor?.since ?? request.since;
    const before = request.cursor?.before;
    const pageQuery = (floor?: string, excludeTypes?: readonly string[]) => ({
      before,
      after: maxId(since, floor),
      limit: request.limit + 1,
      type: request.type,
      ...(excludeTypes && excludeTypes.length > 0 ? { excludeTypes } : {}),
      nowMs,
    });
    const ownSource: InboxSource = { kind: 'own', tenantId: user.tenantId, userId: user.userId };
    const [celebrities, own, state, muted] = await Promise.all([
      this.deps.celebrities.listFollowedCelebrities(user),
      this.deps.inbox.listInboxPage(ownSource, pageQuery()),
      this.deps.readState.getReadState(user),
      this.mutedTypesOf(user),
    ]);
    const feedSources = this.viewSources(user, celebrities).slice(1);
    const feeds = await Promise.all(
      feedSources.map(({ source, floor }) => this.deps.inbox.listInboxPage(source, pageQuery(floor, muted))),
    );
    const merged = mergeNewestFirst([own, ...feeds], request.limit + 1);
    const page = merged.slice(0, request.limit);
    const last = page[page.length - 1];
    const nextCursor =
      merged.length > request.limit && last
        ? encodeCursor(since === undefined ? { before: last.id } : { before: last.id, since }, this.deps.cursorSecret)
        : null;
    return { items: page.map((item) => presentNotification(item, state)), nextCursor };
  }

  /** Unread and unseen counts, capped: read state + celebrity list, then one id query per source. */
  async counts(user: UserRef): Promise<Counts> {
    const nowMs = this.deps.clock.nowMs();
    const [state, celebrities, muted] = await Promise.all([
      this.deps.readState.getReadState(user),
      this.deps.celebrities.listFollowedCelebrities(user),
      this.mutedTypesOf(user),
    ]);
    const limit = countQueryLimit(state);
    const readMark = state.readMark ?? undefined;
    const idLists = await Promise.all(
      this.viewSources(user, celebrities).map(({ source, floor }) =>
        source.kind === 'feed' && muted.length > 0
          ? this.deps.inbox.listUnreadIdsAbove(source, maxId(readMark, floor), limit, nowMs, muted)
          : this.deps.inbox.listUnreadIdsAbove(source, maxId(readMark, floor), limit, nowMs),
      ),
    );
    return countFromIdsAboveReadMark(new Set(idLists.flat()), state);
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
    const { mark, atIso } = markUpTo(this.deps.clock.nowMs(), upTo);
    const result = await this.deps.readState.advanceReadMark(user, mark, atIso);
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
    const own: InboxSource = { kind: 'own', tenantId: user.tenantId, userId: user.userId };
    let found = await this.deps.inbox.findNotification([own], id, nowMs);
    if (!found) {
      const celebrities = await this.deps.celebrities.listFollowedCelebrities(user);
      const visibleFeeds = this.viewSources(user, celebrities)
        .slice(1)
        .filter(({ floor }) => floor === undefined || id > floor)
        .map(({ source }) => source);
      if (visibleFeeds.length > 0) found = await this.deps.inbox.findNotification(visibleFeeds, id, nowMs);
    }
    if (!found) throw new NotFoundError(`notification ${id} is not in your inbox`);
    const expiresAt = Math.ceil(nowMs / 1000) + this.deps.inboxTtlDays * 86_400;
    await this.deps.readState.recordSingleRead(user, id, expiresAt);
    await this.deps.readStateListener?.readStateChanged(user);
  }
}

