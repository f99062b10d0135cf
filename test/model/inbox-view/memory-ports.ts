/**
 * In-memory ports of the inbox core, for the model run on the core alone: each keeps what its
 * DynamoDB adapter keeps (sorted partitions, TTL filtered on read, the same guards on the marks and
 * the arrival clock) so the core cannot tell them apart, at no I/O cost.
 */
import { decodeFollowedPack } from '../../../src/core/model/followed-pack.js';
import { isExpired, type StoredNotification } from '../../../src/core/model/notification.js';
import { withStaleReadAll, type ArchiveSnapshot, type ItemException, type ReadAllMark, type ReadState } from '../../../src/core/model/read-state.js';
import { ownCountsBase } from '../../../src/core/model/counts-floor.js';
import type { UserRef } from '../../../src/core/model/user.js';
import type { CelebrityPost, CelebrityPostIndexEntry, CelebrityPostsIndexWriter, CelebrityPostsPage, CelebrityPostsReader } from '../../../src/core/ports/celebrity-posts.js';
import type { CelebrityPostKey } from '../../../src/core/model/celebrity-posts-index.js';
import type { ArrivalCandidate, ArrivalKey, ArrivalLedger, ArrivalStamp, LoggedPost, RecentPostsLog } from '../../../src/core/ports/fan-out.js';
import type { AccountProfile, FollowedCelebrityEntry, FollowGraph, FollowersPage, PairState, Follower, TierChange } from '../../../src/core/ports/follow-graph.js';
import {
  EMPTY_FEED_HEAD,
  type ActionLookup,
  type ActionLookupReader,
  type FeedHead,
  type FeedHeadsReader,
  type FollowedCelebritiesReader,
  type IdRange,
  type InboxItemToWrite,
  type InboxKey,
  type InboxReader,
  type InboxSource,
  type InboxWriter,
  type PageQuery,
  type LateArrivalMarker,
  type LateArrivalRecorder,
  type ReadStateStore,
  type ReadStateWindow,
  type Retraction,
  type RetractionStore,
  type RetractionsReader,
} from '../../../src/core/ports/inbox.js';
import { FOLLOWED_PACK_ATTRIBUTE, encodeFollowedPackElement, type FollowedCelebrity } from '../../../src/core/model/followed-pack.js';
import type { Backend, Ports } from './backend.js';
import type { EscalationCheck, EscalationStateReader } from '../../../src/core/channels/escalation.js';
import { timeOfId } from '../../../src/core/model/ids.js';

const userKey = (user: UserRef) => `${user.tenantId}\u0000${user.userId}`;

function partitionOf(source: InboxItemToWrite['source']): string {
  if (source.kind === 'own') return `own\u0000${source.tenantId}\u0000${source.userId}`;
  if (source.kind === 'feed') return `feed\u0000${source.tenantId}\u0000${source.actorId}\u0000${source.shard}`;
  return `log\u0000${source.tenantId}\u0000${source.shard}`;
}

/** Items of one partition, newest first within an exclusive range. */
function inRange<T>(partition: Map<string, T> | undefined, range: IdRange): [string, T][] {
  if (!partition) return [];
  return [...partition]
    .filter(([id]) => (range.before === undefined || id < range.before) && (range.after === undefined || id > range.after))
    .sort(([a], [b]) => (a < b ? 1 : a > b ? -1 : 0));
}

class MemoryInbox implements InboxReader, InboxWriter {
  readonly partitions = new Map<string, Map<string, StoredNotification & { authorId?: string }>>();

  async writeInboxItems(items: readonly InboxItemToWrite[]): Promise<void> {
    for (const { source, item } of items) {
      const pk = partitionOf(source);
      const partition = this.partitions.get(pk) ?? new Map();
      partition.set(item.id, { ...structuredClone(item), ...(source.kind === 'celebrityPosts' ? { authorId: source.authorId } : {}) });
      this.partitions.set(pk, partition);
    }
  }

  async listInboxPage(source: InboxSource, query: PageQuery): Promise<StoredNotification[]> {
    return inRange(this.partitions.get(partitionOf(source)), query)
      .map(([, item]) => item)
      .filter((item) => !isExpired(item, query.nowMs) && (query.type === undefined || item.type === query.type) && !(query.excludeTypes ?? []).includes(item.type))
      .slice(0, query.limit);
  }

  async listIdsAbove(source: InboxSource, range: IdRange, limit: number, nowMs: number, excludeTypes?: readonly string[]): Promise<InboxKey[]> {
    return inRange(this.partitions.get(partitionOf(source)), range)
      .map(([, item]) => item)
      .filter((item) => !isExpired(item, nowMs) && !(excludeTypes ?? []).includes(item.type))
      .slice(0, limit)
      .map((item) => (item.comeback ? { id: item.id, comeback: item.comeback } : { id: item.id }));
  }

  async getItems(keys: readonly { source: InboxSource; id: string }[]): Promise<Map<string, StoredNotification>> {
    const found = new Map<string, StoredNotification>();
    for (const { source, id } of keys) {
      const item = this.partitions.get(partitionOf(source))?.get(id);
      if (item) found.set(id, item);
    }
    return found;
  }

  async findNotification(sources: readonly InboxSource[], id: string, nowMs: number): Promise<StoredNotification | undefined> {
    for (const source of sources) {
      const item = this.partitions.get(partitionOf(source))?.get(id);
      if (item && !isExpired(item, nowMs)) return item;
    }
    return undefined;
  }
}

interface MarksRecord {
  readMark?: string;
  readAt?: string;
  seenMark?: string;
  seenAt?: string;
  version: number;
  readVersion: number;
  stale: ReadAllMark[];
  archive?: ArchiveSnapshot;
  archivedAt?: string;
  unreadBelowMark: Map<string, number>;
  countsFloor?: string;
}

class MemoryReadState implements ReadStateStore, LateArrivalRecorder {
  private readonly marks = new Map<string, MarksRecord>();
  private readonly exceptions = new Map<string, Map<string, ItemException>>();
  private readonly late = new Map<string, Set<string>>();

  private marksOf(user: UserRef): MarksRecord {
    let marks = this.marks.get(userKey(user));
    if (!marks) {
      marks = { version: 0, readVersion: 0, stale: [], unreadBelowMark: new Map() };
      this.marks.set(userKey(user), marks);
    }
    return marks;
  }

  private stateOf(user: UserRef, exceptions: Map<string, ItemException>): ReadState {
    const marks = this.marksOf(user);
    return {
      readMark: marks.readMark ?? null,
      readAt: marks.readAt ?? null,
      seenMark: marks.seenMark ?? null,
      seenAt: marks.seenAt ?? null,
      version: marks.version,
      readVersion: marks.readVersion,
      staleReadAlls: structuredClone(marks.stale),
      ...(marks.archive ? { archive: structuredClone(marks.archive) } : {}),
      ...(marks.archivedAt !== undefined ? { archivedAt: marks.archivedAt } : {}),
      unreadBelowMark: new Map(marks.unreadBelowMark),
      ...(marks.countsFloor !== undefined ? { countsFloor: marks.countsFloor } : {}),
      exceptions,
    };
  }

  private exceptionsOf(user: UserRef): Map<string, ItemException> {
    let exceptions = this.exceptions.get(userKey(user));
    if (!exceptions) {
      exceptions = new Map();
      this.exceptions.set(userKey(user), exceptions);
    }
    return exceptions;
  }

  async readWindow(user: UserRef, before: string | undefined, limit: number): Promise<ReadStateWindow> {
    const all = inRange(this.exceptionsOf(user), { before });
    const taken = all.slice(0, limit);
    const state = this.stateOf(user, new Map(taken.map(([id, exception]) => [id, structuredClone(exception)])));
    return all.length > limit && taken.length > 0 ? { state, exceptionsFrom: taken[taken.length - 1]![0] } : { state };
  }

  async listExceptions(user: UserRef, from: string, before: string | undefined): Promise<Map<string, ItemException>> {
    return new Map(inRange(this.exceptionsOf(user), { before }).filter(([id]) => id >= from).map(([id, exception]) => [id, structuredClone(exception)]));
  }

  async readAboveMark(user: UserRef): Promise<ReadState> {
    const marks = this.marksOf(user);
    const state = this.stateOf(user, new Map());
    const base = ownCountsBase(state);
    const lateArrivals = new Set([...(this.late.get(userKey(user)) ?? [])].filter((id) => marks.readMark === undefined || id > marks.readMark));
    return { ...state, exceptions: new Map(inRange(this.exceptionsOf(user), { after: base }).map(([id, exception]) => [id, structuredClone(exception)])), ...(lateArrivals.size > 0 ? { lateArrivals } : {}) };
  }

  async advanceCountsFloor(user: UserRef, from: string | null, to: string): Promise<boolean> {
    const marks = this.marksOf(user);
    if ((marks.countsFloor ?? null) !== from) return false;
    marks.countsFloor = to;
    return true;
  }

  async recordLateArrivals(markers: readonly LateArrivalMarker[]): Promise<void> {
    for (const { user, id } of markers) {
      const late = this.late.get(userKey(user)) ?? new Set<string>();
      late.add(id);
      this.late.set(userKey(user), late);
    }
  }

  async getExceptions(user: UserRef, ids: readonly string[]): Promise<Map<string, ItemException>> {
    const exceptions = this.exceptionsOf(user);
    return new Map(ids.flatMap((id) => (exceptions.has(id) ? [[id, structuredClone(exceptions.get(id)!)] as const] : [])));
  }

  /** The whole state with the exceptions of `ids` (the action lookup). */
  stateWith(user: UserRef, ids: readonly string[]): ReadState {
    const exceptions = this.exceptionsOf(user);
    return this.stateOf(user, new Map(ids.flatMap((id) => (exceptions.has(id) ? [[id, structuredClone(exceptions.get(id)!)] as const] : []))));
  }

  async advanceReadMark(user: UserRef, mark: string, atIso: string): Promise<{ readAt: string }> {
    const marks = this.marksOf(user);
    marks.version += 1;
    if (marks.readMark === undefined || marks.readMark <= mark) {
      Object.assign(marks, { readMark: mark, readAt: atIso, readVersion: marks.version, stale: [] });
      return { readAt: atIso };
    }
    marks.stale = withStaleReadAll(marks.stale, { version: marks.version, mark });
    return { readAt: marks.readAt ?? atIso };
  }

  async advanceSeenMark(user: UserRef, mark: string, atIso: string): Promise<{ seenAt: string }> {
    const marks = this.marksOf(user);
    if (marks.seenMark === undefined || marks.seenMark < mark) Object.assign(marks, { seenMark: mark, seenAt: atIso });
    return { seenAt: marks.seenAt ?? atIso };
  }

  async archiveAllRead(user: UserRef, atIso: string): Promise<void> {
    const marks = this.marksOf(user);
    marks.version += 1;
    marks.archive = { version: marks.version, readMark: marks.readMark ?? null, readVersion: marks.readVersion, staleReadAlls: structuredClone(marks.stale) };
    marks.archivedAt = atIso;
  }

  async putExceptions(user: UserRef, exceptions: ReadonlyMap<string, ItemException>): Promise<void> {
    const stored = this.exceptionsOf(user);
    for (const [id, exception] of exceptions) stored.set(id, structuredClone(exception));
  }

  async recordUnreadBelowMark(user: UserRef, ids: readonly string[], version: number, forget: readonly string[]): Promise<void> {
    const marks = this.marksOf(user);
    for (const id of forget) if (!ids.includes(id)) marks.unreadBelowMark.delete(id);
    for (const id of ids) marks.unreadBelowMark.set(id, version);
  }
}

class MemoryGraph implements FollowGraph, FollowedCelebritiesReader, FeedHeadsReader {
  readonly profiles = new Map<string, AccountProfile & { head?: FeedHead }>();
  readonly follows = new Map<string, Map<string, number>>();

  async getProfile(tenantId: string, userId: string): Promise<AccountProfile> {
    const profile = this.profiles.get(`${tenantId}\u0000${userId}`);
    return profile ? { followerCount: profile.followerCount, tier: profile.tier, ...(profile.everCelebrity ? { everCelebrity: true } : {}) } : { followerCount: 0, tier: 'ordinary' };
  }

  // The inbox-view model does not follow or unfollow: its celebrities and packs are set up directly.
  private noFollows(): never {
    throw new Error('the inbox-view model does not follow or unfollow');
  }
  recordFollowChange = async (): Promise<PairState> => this.noFollows();
  countPair = async (): Promise<AccountProfile> => this.noFollows();
  profileForPair = async (): Promise<{ profile: AccountProfile; claimLeft: boolean }> => this.noFollows();
  releasePair = async (): Promise<void> => this.noFollows();
  forgetCountClaim = async (): Promise<void> => this.noFollows();
  getFollowers = async (): Promise<Map<string, Follower>> => this.noFollows();
  replaceFollowedCelebrity = async (): Promise<void> => this.noFollows();

  async changeTier(_tenantId: string, _userId: string, _change: TierChange): Promise<boolean> {
    return false;
  }

  async listFollowersPage(): Promise<FollowersPage> {
    return { followers: [] };
  }

  async advanceNewestFeedId(tenantId: string, celebrityId: string, notificationId: string): Promise<void> {
    const profile = this.profiles.get(`${tenantId}\u0000${celebrityId}`);
    if (!profile) return;
    const head = profile.head ?? { newest: EMPTY_FEED_HEAD };
    if (head.newest < notificationId) profile.head = { newest: notificationId, previous: head.newest };
    else if (head.newest > notificationId && (head.previous === undefined || head.previous < notificationId)) profile.head = { ...head, previous: notificationId };
  }

  async putFollowedCelebrities(entries: readonly FollowedCelebrityEntry[]): Promise<void> {
    for (const entry of entries) {
      const key = userKey(entry);
      const follows = this.follows.get(key) ?? new Map<string, number>();
      follows.set(entry.celebrityId, Math.max(follows.get(entry.celebrityId) ?? 0, Date.parse(entry.followedAt)));
      this.follows.set(key, follows);
    }
  }

  async removeFollowedCelebrity(tenantId: string, userId: string, celebrityId: string): Promise<void> {
    this.follows.get(`${tenantId}\u0000${userId}`)?.delete(celebrityId);
  }

  async listFollowedCelebrities(user: UserRef): Promise<FollowedCelebrity[]> {
    // Through the pack's encoding, as the adapter reads it.
    const elements = [...(this.follows.get(userKey(user)) ?? [])].map(([celebrityId, ms]) => encodeFollowedPackElement(celebrityId, ms));
    return decodeFollowedPack([{ [FOLLOWED_PACK_ATTRIBUTE]: new Set(elements) }]);
  }

  async feedHeads(tenantId: string, celebrityIds: readonly string[]): Promise<ReadonlyMap<string, FeedHead>> {
    const heads = new Map<string, FeedHead>();
    for (const celebrityId of celebrityIds) {
      const profile = this.profiles.get(`${tenantId}\u0000${celebrityId}`);
      if (profile?.head) heads.set(celebrityId, { ...profile.head });
    }
    return heads;
  }
}

class MemoryCelebrityPosts implements CelebrityPostsReader, CelebrityPostsIndexWriter {
  readonly index = new Map<string, Map<string, CelebrityPostKey>>();

  constructor(private readonly inbox: MemoryInbox) {}

  async indexPosts(entries: readonly CelebrityPostIndexEntry[]): Promise<void> {
    for (const { tenantId, shard, ...post } of entries) {
      const pk = `${tenantId}\u0000${shard}`;
      const slot = this.index.get(pk) ?? new Map<string, CelebrityPostKey>();
      slot.set(post.id, post);
      this.index.set(pk, slot);
    }
  }

  async *scanPosts(tenantId: string, shard: number, range: IdRange, pageSize: number, firstPageSize = pageSize): AsyncIterable<CelebrityPostsPage<CelebrityPost>> {
    const all = inRange(this.inbox.partitions.get(partitionOf({ kind: 'celebrityPosts', tenantId, shard, authorId: '' })), range).map(([, item]) => item);
    let size = Math.max(1, firstPageSize);
    for (let start = 0; start < all.length || start === 0; start += size, size = pageSize) {
      const page = all.slice(start, start + size);
      yield { posts: page.map(({ authorId, ...item }) => ({ authorId: authorId ?? '', item })), more: start + size < all.length, ...(page.length > 0 ? { scannedDownTo: page[page.length - 1]!.id } : {}) };
      if (start + size >= all.length) return;
    }
  }

  async *scanPostKeys(tenantId: string, shard: number, after: string | undefined, firstSlots: number): AsyncIterable<CelebrityPostsPage<CelebrityPostKey>> {
    const all = inRange(this.index.get(`${tenantId}\u0000${shard}`), { after }).map(([, post]) => post);
    let size = Math.max(1, firstSlots);
    for (let start = 0; ; start += size, size *= 4) {
      const page = all.slice(start, start + size);
      const more = start + size < all.length;
      yield { posts: page, more, ...(page.length > 0 ? { scannedDownTo: page[page.length - 1]!.id } : {}) };
      if (!more) return;
    }
  }
}

class MemoryArrivals implements ArrivalLedger {
  private readonly records = new Map<string, ArrivalCandidate & { expiresAt: number; retracted: boolean }>();
  private key = (key: ArrivalKey) => `${key.tenantId}\u0000${key.type}\u0000${key.eventId}`;
  private stamp = (record: ArrivalCandidate & { retracted: boolean }, fresh: boolean): ArrivalStamp => ({ arrivalMs: record.arrivalMs, intakeMs: record.intakeMs, ...(record.mode ? { mode: record.mode } : {}), fresh, retracted: record.retracted });

  async stampArrival(key: ArrivalKey, candidateMs: number, expiresAtSeconds: number): Promise<ArrivalStamp> {
    return this.stampEvent(key, { arrivalMs: candidateMs, intakeMs: candidateMs }, expiresAtSeconds);
  }

  async stampEvent(key: ArrivalKey, candidate: ArrivalCandidate, expiresAtSeconds: number): Promise<ArrivalStamp> {
    const record = this.records.get(this.key(key));
    if (record && record.expiresAt > Math.floor(candidate.arrivalMs / 1000)) return this.stamp(record, false);
    const fresh = { ...candidate, expiresAt: expiresAtSeconds, retracted: false };
    this.records.set(this.key(key), fresh);
    return this.stamp(fresh, true);
  }

  async restampArrival(key: ArrivalKey, fromMs: number, candidateMs: number, expiresAtSeconds: number): Promise<ArrivalStamp> {
    const record = this.records.get(this.key(key));
    if (!record) return { arrivalMs: candidateMs, intakeMs: candidateMs, fresh: true, retracted: false };
    if (record.arrivalMs !== fromMs || record.retracted) return this.stamp(record, false);
    Object.assign(record, { arrivalMs: candidateMs, expiresAt: expiresAtSeconds });
    return this.stamp(record, true);
  }

  async stampRetracted(key: ArrivalKey, candidateMs: number, expiresAtSeconds: number): Promise<number> {
    const stored = this.records.get(this.key(key));
    // An expired record dated nothing left: the retraction stamps the event anew.
    const record = stored && stored.expiresAt > Math.floor(candidateMs / 1000) ? stored : { arrivalMs: candidateMs, intakeMs: candidateMs, expiresAt: expiresAtSeconds, retracted: false };
    record.retracted = true;
    this.records.set(this.key(key), record);
    return record.arrivalMs;
  }
}

class MemoryRecentPosts implements RecentPostsLog {
  private readonly posts = new Map<string, LoggedPost[]>();
  async recordPost(tenantId: string, authorId: string, post: LoggedPost): Promise<void> {
    const key = `${tenantId}\u0000${authorId}`;
    this.posts.set(key, [...(this.posts.get(key) ?? []).filter((known) => !(known.eventId === post.eventId && known.arrivalMs === post.arrivalMs)), post]);
  }
  async listPostsFrom(tenantId: string, authorId: string, fromMs: number, nowMs: number): Promise<LoggedPost[]> {
    return (this.posts.get(`${tenantId}\u0000${authorId}`) ?? []).filter((post) => post.arrivalMs >= fromMs && post.expiresAt * 1000 > nowMs).sort((a, b) => a.arrivalMs - b.arrivalMs);
  }
}

class MemoryRetractions implements RetractionStore, RetractionsReader {
  private readonly records = new Map<string, Map<string, Retraction & { expiresAt: number }>>();
  async recordRetraction(retraction: Retraction, expiresAtEpochSeconds: number): Promise<void> {
    const tenant = this.records.get(retraction.tenantId) ?? new Map();
    tenant.set(`${String(retraction.arrivalMs).padStart(15, '0')}#${retraction.type}#${retraction.eventId}`, { ...retraction, expiresAt: expiresAtEpochSeconds });
    this.records.set(retraction.tenantId, tenant);
  }
  has(tenantId: string, arrivalMs: number, type: string, eventId: string): boolean {
    return this.records.get(tenantId)?.has(`${String(arrivalMs).padStart(15, '0')}#${type}#${eventId}`) ?? false;
  }
  async retractionsOf(tenantId: string, nowMs: number): Promise<Retraction[]> {
    return [...(this.records.get(tenantId)?.values() ?? [])].filter((record) => record.expiresAt * 1000 > nowMs).map(({ expiresAt: _expiresAt, ...retraction }) => retraction);
  }
}

/** The escalation's one read: the marks with the ids' exceptions, and the retraction records keyed by the ids' arrival (as the DynamoDB adapter's keys). */
class MemoryEscalationState implements EscalationStateReader {
  constructor(
    private readonly readState: MemoryReadState,
    private readonly retractions: MemoryRetractions,
  ) {}

  async escalationState(user: UserRef, checks: readonly EscalationCheck[]): Promise<{ state: ReadState; retracted: ReadonlySet<string> }> {
    const retracted = new Set(checks.filter((check) => this.retractions.has(user.tenantId, timeOfId(check.notificationId), check.type, check.eventId)).map((check) => check.notificationId));
    return { state: this.readState.stateWith(user, checks.map((check) => check.notificationId)), retracted };
  }
}

class MemoryActionLookup implements ActionLookupReader {
  constructor(
    private readonly inbox: MemoryInbox,
    private readonly readState: MemoryReadState,
    private readonly graph: MemoryGraph,
  ) {}

  async lookupForAction(user: UserRef, ids: readonly string[], logShard: number): Promise<ActionLookup> {
    const own = new Map<string, StoredNotification>();
    const celebrityPosts = new Map<string, { authorId: string; item: StoredNotification }>();
    const ownPartition = this.inbox.partitions.get(partitionOf({ kind: 'own', tenantId: user.tenantId, userId: user.userId }));
    const log = this.inbox.partitions.get(partitionOf({ kind: 'celebrityPosts', tenantId: user.tenantId, shard: logShard, authorId: '' }));
    for (const id of ids) {
      const item = ownPartition?.get(id);
      if (item) own.set(id, structuredClone(item));
      const post = log?.get(id);
      if (post) {
        const { authorId, ...rest } = post;
        celebrityPosts.set(id, { authorId: authorId ?? '', item: structuredClone(rest) });
      }
    }
    return { own, celebrityPosts, state: this.readState.stateWith(user, ids), followed: await this.graph.listFollowedCelebrities(user) };
  }
}

/** A fresh in-memory store per run. */
export function memoryBackend(): Backend {
  const inbox = new MemoryInbox();
  const readState = new MemoryReadState();
  const graph = new MemoryGraph();
  const retractions = new MemoryRetractions();
  const ports: Ports = {
    inbox,
    readState,
    actionLookup: new MemoryActionLookup(inbox, readState, graph),
    graph,
    graphReads: graph,
    celebrityPosts: new MemoryCelebrityPosts(inbox),
    arrivals: new MemoryArrivals(),
    recentPosts: new MemoryRecentPosts(),
    retractions,
    escalation: new MemoryEscalationState(readState, retractions),
  };
  return {
    name: 'memory',
    ports,
    async seed(user, celebrities, followedAtMs) {
      for (const celebrityId of celebrities) graph.profiles.set(`${user.tenantId}\u0000${celebrityId}`, { followerCount: 1_000_000, tier: 'celebrity', everCelebrity: true, head: { newest: EMPTY_FEED_HEAD } });
      await graph.putFollowedCelebrities(celebrities.map((celebrityId) => ({ ...user, celebrityId, followedAt: new Date(followedAtMs).toISOString() })));
    },
    requests: () => 0,
  };
}
