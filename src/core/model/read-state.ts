/**
 * Read state without touching notifications (the O(1) mark-all-read), and the per-item state
 * beside it (docs/api/inbox-state.md states the rules; test/model/inbox-view/model.ts is the
 * reference they are checked against).
 *
 * - The marks item holds the read and seen marks and a version counter `version`: every read-all
 *   and archive-all-read takes the next version, so "what happened after" is decided by versions,
 *   never by comparing clocks of different machines.
 * - A per-item exception holds the notification's whole state as it was when the user last changed
 *   it one by one (`materialized`), with the marks' version it includes (`basis`). The "all" actions
 *   written after it apply on top: a read-all covering it reads it, an archive-all-read archives it if
 *   it was read then. So every "all" action stays one write and no exception is ever rewritten by one.
 * - Read-all with an older `upTo` than the mark (a device that has not caught up) reads again only
 *   what is at or below its `upTo`: such read-alls are kept as a short list (`staleReadAlls`) until
 *   the next read-all that reaches the mark makes them moot.
 */
import { idUpperBoundAt, timeOfId } from './ids.js';
import type { Comeback, Notification, StoredNotification } from './notification.js';

/** One read-all: the version it took and its mark. */
export interface ReadAllMark {
  version: number;
  mark: string;
}

/** What archive-all-read saw of the read-alls when it ran: an item untouched since is archived if it was read then. */
export interface ArchiveSnapshot {
  version: number;
  readMark: string | null;
  readVersion: number;
  staleReadAlls: readonly ReadAllMark[];
}

/** The state of one notification as the user last set it one by one, over the marks of version `basis`. */
export interface ItemException {
  /** The notification's type (counts of a tab leave other types out). */
  type: string;
  /** The celebrity whose feed holds it; absent for the user's own items. */
  source?: string;
  /** When it is a snooze comeback: what it brings back (its root's retraction hides it). */
  comeback?: Comeback;
  /** The marks' version this state includes: "all" actions of later versions apply on top (-1: before every one, a 0.1.0 single read). */
  basis: number;
  read: boolean;
  seen: boolean;
  archived: boolean;
  deleted: boolean;
  /** Snoozed away: hidden for good; `comebackId` is the item that comes back at `snoozedUntil`. */
  snoozedUntil?: number;
  comebackId?: string;
  /** Epoch seconds (TTL). */
  expiresAt: number;
}

export interface ReadState {
  /** Every id <= readMark was read by some read-all. */
  readMark: string | null;
  readAt: string | null;
  /** Every id <= seenMark is seen. */
  seenMark: string | null;
  seenAt: string | null;
  /** The marks' version: the count of read-alls and archive-all-reads (0: none yet, or a 0.1.0 marks item). */
  version: number;
  /** The version of the read-all that set `readMark` last (0 for a 0.1.0 read mark). */
  readVersion: number;
  /** Read-alls after `readVersion` whose `upTo` was below the mark (devices behind). */
  staleReadAlls: readonly ReadAllMark[];
  archive?: ArchiveSnapshot;
  archivedAt?: string;
  /** Ids marked unread at or below the read mark, or countable again below the counts floor (the version of the change): counts look them up. */
  unreadBelowMark: ReadonlyMap<string, number>;
  /** Every own id in (readMark, countsFloor] is out of the counts unless named (`unreadBelowMark`, `lateArrivals`): src/core/model/counts-floor.ts. */
  countsFloor?: string | null;
  /** The ids of own items that landed late under an older id, above the read mark (counts read the markers with the marks, then look the items up). */
  lateArrivals?: ReadonlySet<string>;
  /** The per-item exceptions of the ids being read (a page's range, the ids above the read mark, ...). */
  exceptions: ReadonlyMap<string, ItemException>;
}

export const EMPTY_READ_STATE: ReadState = {
  readMark: null,
  readAt: null,
  seenMark: null,
  seenAt: null,
  version: 0,
  readVersion: 0,
  staleReadAlls: [],
  unreadBelowMark: new Map(),
  exceptions: new Map(),
};

/** The basis of a notification without an exception: every "all" action applies to it. */
const NO_BASIS = -1;

/** The count at which the badge stops counting and says "99+". */
export const COUNT_CAP = 99;

/** The highest mark of the read-alls after version `basis` (undefined: none). */
function readAllsAfter(readMark: string | null, readVersion: number, stale: readonly ReadAllMark[], basis: number): string | undefined {
  let highest = readMark !== null && readVersion > basis ? readMark : undefined;
  for (const { version, mark } of stale) if (version > basis && (highest === undefined || mark > highest)) highest = mark;
  return highest;
}

export function isRead(id: string, state: ReadState): boolean {
  const exception = state.exceptions.get(id);
  if (exception?.read) return true;
  const covered = readAllsAfter(state.readMark, state.readVersion, state.staleReadAlls, exception?.basis ?? NO_BASIS);
  return covered !== undefined && id <= covered;
}

/** Seen once: read, under the seen or the read mark (a later "unread" keeps it seen), or seen one by one. */
export function isSeen(id: string, state: ReadState): boolean {
  if (state.exceptions.get(id)?.seen) return true;
  if ((state.seenMark !== null && id <= state.seenMark) || (state.readMark !== null && id <= state.readMark)) return true;
  return isRead(id, state);
}

/** Archived one by one, or read when the last archive-all-read after its last change ran. */
export function isArchived(id: string, state: ReadState): boolean {
  const exception = state.exceptions.get(id);
  if (exception?.archived) return true;
  const archive = state.archive;
  const basis = exception?.basis ?? NO_BASIS;
  if (!archive || archive.version <= basis) return false;
  if (exception?.read) return true;
  const covered = readAllsAfter(archive.readMark, archive.readVersion, archive.staleReadAlls, basis);
  return covered !== undefined && id <= covered;
}

/** Deleted or snoozed away: gone from every list and count. */
export function isHidden(id: string, state: ReadState): boolean {
  const exception = state.exceptions.get(id);
  return exception !== undefined && (exception.deleted || exception.snoozedUntil !== undefined);
}

/** The whole current state of one notification, as a new exception would hold it (without its own fields). */
export function currentState(id: string, state: ReadState): Pick<ItemException, 'read' | 'seen' | 'archived' | 'deleted' | 'snoozedUntil' | 'comebackId'> {
  const exception = state.exceptions.get(id);
  return {
    read: isRead(id, state),
    seen: isSeen(id, state),
    archived: isArchived(id, state),
    deleted: exception?.deleted ?? false,
    ...(exception?.snoozedUntil !== undefined ? { snoozedUntil: exception.snoozedUntil, comebackId: exception.comebackId } : {}),
  };
}

/** A per-item change: `snooze` carries its return and the comeback's id. */
export type ItemChange =
  | { kind: 'read' | 'unread' | 'seen' | 'archive' | 'unarchive' | 'delete' }
  | { kind: 'snooze'; untilMs: number; comebackId: string };

/** The exception one change leaves: the current state with the change applied, over the marks as they are now. */
export function exceptionAfter(id: string, state: ReadState, item: { type: string; source?: string; comeback?: Comeback }, change: ItemChange, expiresAt: number): ItemException {
  const now = currentState(id, state);
  const next: ItemException = {
    type: item.type,
    ...(item.source !== undefined ? { source: item.source } : {}),
    ...(item.comeback !== undefined ? { comeback: item.comeback } : {}),
    basis: state.version,
    ...now,
    expiresAt,
  };
  switch (change.kind) {
    case 'read':
      return { ...next, read: true, seen: true };
    case 'unread':
      return { ...next, read: false };
    case 'seen':
      return { ...next, seen: true };
    case 'archive':
      return { ...next, archived: true };
    case 'unarchive':
      return { ...next, archived: false };
    case 'delete':
      return { ...next, deleted: true };
    case 'snooze':
      return { ...next, snoozedUntil: change.untilMs, comebackId: change.comebackId };
  }
}

/** Marked unread at or below the read mark: counts must find it though it is below the mark (`unreadBelowMark`). */
export function isUnreadBelowMark(id: string, exception: ItemException | undefined, state: Pick<ReadState, 'readMark'>): boolean {
  return exception !== undefined && !exception.read && state.readMark !== null && id <= state.readMark;
}

/**
 * Whether an `unreadBelowMark` entry can still count: it is above the read mark (named for the counts
 * floor), or no read-all that reaches the mark came after it.
 */
export function unreadBelowMarkIsLive(id: string, version: number, state: Pick<ReadState, 'readVersion' | 'readMark'>): boolean {
  return version >= state.readVersion || (state.readMark !== null && id > state.readMark);
}

/** The mark that read-all / seen-all writes: covers every id whose time is at or before `nowMs`. */
export function markAt(nowMs: number): string {
  return idUpperBoundAt(nowMs);
}

/**
 * The mark of read-all / seen-all: `min(upTo, markAt(now))`, where `upTo` is the newest id the client
 * rendered (ids sort by arrival, so nothing that landed after it is covered). `atIso` is the time of
 * the mark (the time part of `upTo` when it bounds the mark, else now), which is what clients apply.
 */
export function markUpTo(nowMs: number, upTo: string | undefined): { mark: string; atIso: string } {
  const now = markAt(nowMs);
  if (upTo === undefined || upTo >= now) return { mark: now, atIso: new Date(nowMs).toISOString() };
  return { mark: upTo, atIso: new Date(timeOfId(upTo)).toISOString() };
}

/** The stale read-alls still worth keeping after adding one: a later one with a higher or equal mark makes an earlier one moot. */
export function withStaleReadAll(stale: readonly ReadAllMark[], added: ReadAllMark): ReadAllMark[] {
  return [...stale.filter((entry) => entry.mark > added.mark), added];
}

export interface Counts {
  unread: number;
  unseen: number;
  capped: boolean;
  /**
   * The newest unread id these counts include (null when none). A client that receives the push of
   * an id at or below it knows the counts already hold it, and does not add it again.
   */
  newestId: string | null;
}

/** Raw (uncapped) unread and unseen counts of the ids, and the newest unread id; `gone` ids count as neither. */
export function tallyUnread(ids: Iterable<string>, state: ReadState, gone: (id: string) => boolean = () => false): { unread: number; unseen: number; newestId: string | null } {
  let unread = 0;
  let unseen = 0;
  let newestId: string | null = null;
  for (const id of ids) {
    if (isRead(id, state) || gone(id)) continue;
    unread += 1;
    if (newestId === null || id > newestId) newestId = id;
    if (!isSeen(id, state)) unseen += 1;
  }
  return { unread, unseen, newestId };
}

/** Capped counts: `capped` is true when there are more than `cap` unread; both counts then stop at `cap`. */
export function countFromIds(ids: Iterable<string>, state: ReadState, cap = COUNT_CAP, gone: (id: string) => boolean = () => false): Counts {
  const { unread, unseen, newestId } = tallyUnread(ids, state, gone);
  return { unread: Math.min(unread, cap), unseen: Math.min(unseen, cap), capped: unread > cap, newestId };
}

export function presentNotification(item: StoredNotification, state: ReadState): Notification {
  return {
    id: item.id,
    type: item.type,
    createdAt: item.createdAt,
    read: isRead(item.id, state),
    seen: isSeen(item.id, state),
    actor: item.actor,
    title: item.title,
    body: item.body,
    data: item.data,
    // Only when archived (or a comeback), so the shape of an ordinary notification is unchanged.
    ...(isArchived(item.id, state) ? { archived: true } : {}),
    ...(item.comeback ? { comebackOf: item.comeback.rootId } : {}),
  };
}
