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

export function isRead(id: string, state: ReadState): boolean {
  return (state.readMark !== null && id <= state.readMark) || state.readExceptions.has(id);
}

export function isSeen(id: string, state: ReadState): boolean {
  return isRead(id, state) || (state.seenMark !== null && id <= state.seenMark);
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
export function countFromIdsAboveReadMark(idsAboveReadMark: Iterable<string>, state: ReadState, cap = COUNT_CAP): Counts {
  let unread = 0;
  let unseen = 0;
  for (const id of idsAboveReadMark) {
    if (isRead(id, state)) continue;
    unread += 1;
    if (!isSeen(id, state)) unseen += 1;
  }
  return { unread: Math.min(unread, cap), unseen: Math.min(unseen, cap), capped: unread > cap };
}

/** How many ids above the read mark to read so that the cap can be decided in one query. */
export function countQueryLimit(state: ReadState, cap = COUNT_CAP): number {
  return cap + 1 + state.readExceptions.size;
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
  };
}
