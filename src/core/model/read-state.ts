/**
 * Read state without touching notifications (the O(1) mark-all-read).
 *
 * `read  = id <= readMark || a READ#id exception exists`
 * `seen  = read || id <= seenMark` (opening a notification also means it was seen)
 * so the unseen ids are always a subset of the unread ids, and one pass over the ids above the read
 * mark yields both counts.
 */
import { idUpperBoundAt, timeOfId } from './ids.js';
import type { Notification, StoredNotification } from './notification.js';

export interface ReadState {
  /** Every id <= readMark is read. */
  readMark: string | null;
  readAt: string | null;
  /** Every id <= seenMark is seen. */
  seenMark: string | null;
  seenAt: string | null;
  /** Single reads above the read mark. */
  readExceptions: ReadonlySet<string>;
  /** When the read mark was last written (epoch ms); absent on marks written before it was kept. */
  readMarkSetAt?: number;
  /** When each single read was recorded (epoch ms), for the ids whose time is known. */
  readExceptionTimes?: ReadonlyMap<string, number>;
  /** archive-all-read: the read mark copied at `archiveSetAt` (null: there was no read mark). */
  archiveMark?: string | null;
  archiveSetAt?: number;
  /** Per-item state exceptions (`READEX#<id>`), by notification id. */
  itemStates?: ReadonlyMap<string, ItemState>;
}

/** What one `READEX#<id>` item says; each field is the epoch ms of the change (last change wins). */
export interface ItemState {
  /** The notification's type, so an unread exception below the mark can be counted per type. */
  type?: string;
  unreadAt?: number;
  seenAt?: number;
  archivedAt?: number;
  unarchivedAt?: number;
  deletedAt?: number;
  /** Snoozed (hidden) until then; the notification comes back as a new arrival. */
  snoozedUntil?: number;
}

export const EMPTY_READ_STATE: ReadState = {
  readMark: null,
  readAt: null,
  seenMark: null,
  seenAt: null,
  readExceptions: new Set(),
};

/** The count at which the badge stops counting and says "99+". */
export const COUNT_CAP = 99;

/** When the user last read this one notification on its own (0 for a single read of unknown time). */
function singleReadAt(id: string, state: ReadState): number | undefined {
  if (!state.readExceptions.has(id)) return undefined;
  return state.readExceptionTimes?.get(id) ?? 0;
}

/**
 * `read = id <= readMark || READ#id`, unless an unread exception is newer than both the single read
 * and the last read-all (then the notification reads as unread, below the mark too).
 */
export function isRead(id: string, state: ReadState): boolean {
  const byMark = state.readMark !== null && id <= state.readMark;
  const unreadAt = state.itemStates?.get(id)?.unreadAt;
  if (unreadAt === undefined) return byMark || state.readExceptions.has(id);
  const readOne = singleReadAt(id, state);
  if (readOne !== undefined && readOne > unreadAt) return true;
  return byMark && (state.readMarkSetAt ?? 0) > unreadAt;
}

export function isSeen(id: string, state: ReadState): boolean {
  return isRead(id, state) || (state.seenMark !== null && id <= state.seenMark) || state.itemStates?.get(id)?.seenAt !== undefined;
}

/** Whether the notification was read at `atMs` (archive-all-read archives exactly those). */
function wasReadAt(id: string, state: ReadState, atMs: number): boolean {
  const unreadAt = state.itemStates?.get(id)?.unreadAt;
  const readOne = singleReadAt(id, state);
  const byArchiveMark = state.archiveMark !== undefined && state.archiveMark !== null && id <= state.archiveMark;
  if (unreadAt === undefined || unreadAt > atMs) return byArchiveMark || (readOne !== undefined && readOne <= atMs);
  // Marked unread before the archive: read again (one read or a read-all) between the two?
  if (readOne !== undefined && readOne > unreadAt && readOne <= atMs) return true;
  const markAt = state.readMarkSetAt ?? 0;
  return byArchiveMark && markAt > unreadAt && markAt <= atMs;
}

/** Archived one by one (latest of archive / unarchive wins), else by archive-all-read if it was read then. */
export function isArchived(id: string, state: ReadState): boolean {
  const item = state.itemStates?.get(id);
  if (item?.archivedAt !== undefined || item?.unarchivedAt !== undefined) return (item.archivedAt ?? -1) > (item.unarchivedAt ?? -1);
  return state.archiveSetAt !== undefined && wasReadAt(id, state, state.archiveSetAt);
}

/** Deleted or snoozed for this user: gone from every list and count. */
export function isHidden(id: string, state: ReadState): boolean {
  const item = state.itemStates?.get(id);
  return item !== undefined && (item.deletedAt !== undefined || item.snoozedUntil !== undefined);
}

/** Whether any per-item exception or archive mark can change what a page shows. */
export function hasItemExceptions(state: ReadState): boolean {
  return (state.itemStates?.size ?? 0) > 0 || state.archiveSetAt !== undefined;
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

export interface Counts {
  unread: number;
  unseen: number;
  capped: boolean;
}

/**
 * Counts from the ids above the read mark (expired ones already removed), capped at `cap`.
 * `capped` is true when there are more than `cap` unread; both counts then stop at `cap`.
 */
/** Raw (uncapped) unread and unseen counts of ids above the read mark; `gone` ids count as neither. */
export function tallyUnread(ids: Iterable<string>, state: ReadState, gone: (id: string) => boolean = () => false): { unread: number; unseen: number } {
  let unread = 0;
  let unseen = 0;
  for (const id of ids) {
    if (isRead(id, state) || gone(id)) continue;
    unread += 1;
    if (!isSeen(id, state)) unseen += 1;
  }
  return { unread, unseen };
}

export function countFromIdsAboveReadMark(idsAboveReadMark: Iterable<string>, state: ReadState, cap = COUNT_CAP, gone: (id: string) => boolean = () => false): Counts {
  const { unread, unseen } = tallyUnread(idsAboveReadMark, state, gone);
  return { unread: Math.min(unread, cap), unseen: Math.min(unseen, cap), capped: unread > cap };
}

/** How many ids above the read mark to read so that the cap can be decided in one query. */
export function countQueryLimit(state: ReadState, cap = COUNT_CAP): number {
  return cap + 1 + state.readExceptions.size + (state.itemStates?.size ?? 0);
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
    // Only when archived, so the shape of an ordinary notification is unchanged.
    ...(isArchived(item.id, state) ? { archived: true } : {}),
  };
}
