/**
 * The client's copy of one user's inbox: notifications keyed by id (a repeat is dropped, whichever
 * path it came by: live push, digest, catch-up or history page), kept newest first by id (ULIDs sort
 * by time), with the read/seen marks applied locally and the badge counts. Pure: no I/O, no timers.
 */
import type { BadgeCounts, Notification } from './types.js';
import { highestIdAt } from './ulid-time.js';

/** The server's cap (CONTRACT.md: counts stop at a cap, e.g. 99, and say so). */
export const DEFAULT_COUNT_CAP = 99;

/** Ids remembered by state (removed, read or seen one by one), so a late push or page does not undo it (the newest this many). */
const REMOVED_IDS_KEPT = 2_000;

export class InboxStore {
  private readonly byId = new Map<string, Notification>();
  private sorted: readonly Notification[] | null = null;
  private newest: string | undefined;
  /** The marks as ids: every id at or below is read / seen. */
  private readMark: string | null = null;
  private seenMark: string | null = null;
  private countsValue: BadgeCounts = { unread: 0, unseen: 0, capped: false };
  /**
   * The newest unread id the last server counts included (`Counts.newestId`); undefined when the
   * server did not say (an older server, or no answer yet). A push at or below it is already counted.
   */
  private countedThrough: string | null | undefined;
  /**
   * Live arrivals counted here, above `countedThrough`, by the order they came in: a server answer
   * may not include them yet. One asked for after it came in has them (the push followed the write).
   */
  private readonly liveCounted = new Map<string, number>();
  private arrivals = 0;
  /**
   * Ids that left this list (archived, deleted, snoozed, retracted): a push queued before the change,
   * or a page the server answered before it, arrives late and must not add them back.
   */
  private readonly removedIds = new Set<string>();
  /**
   * The read mark when read notifications were last archived (archive-all-read): one that lands
   * later under an id at or below it (its fan-out was retried under its first stamp) was read, and
   * so archived, at that moment. Unarchived ids are exempt.
   */
  private archivedThrough: string | null = null;
  /** Under that mark but unread at that moment (marked unread over the mark): not archived. */
  private archiveExempt = new Set<string>();
  private readonly unarchivedIds = new Set<string>();
  /** Marked unread since the read mark last moved: the mark no longer covers them (until a later read-all). */
  private readonly unreadOverMark = new Set<string>();
  /** Read or seen one by one on another device (by id): one not loaded yet gets it when it comes. */
  private readonly readIds = new Set<string>();
  private readonly seenIds = new Set<string>();

  constructor(private readonly countCap = DEFAULT_COUNT_CAP) {}

  /** Newest first. The same array is returned until the store changes. */
  list(): readonly Notification[] {
    this.sorted ??= [...this.byId.values()].sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
    return this.sorted;
  }

  get size(): number {
    return this.byId.size;
  }

  get counts(): BadgeCounts {
    return this.countsValue;
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  get(id: string): Notification | undefined {
    return this.byId.get(id);
  }

  /** The greatest id held (the newest notification seen by any path). */
  newestId(): string | undefined {
    return this.newest;
  }

  /**
   * Adds the items not held yet and returns them (in the order given). An item already held keeps its
   * entry and only gains `read`/`seen`: read state only moves forward (marks advance, single reads stay).
   */
  merge(items: readonly Notification[]): Notification[] {
    const added: Notification[] = [];
    for (const incoming of items) {
      if (this.removedIds.has(incoming.id)) continue;
      if (this.archivedThrough !== null && incoming.id <= this.archivedThrough && !this.archiveExempt.has(incoming.id) && !this.unarchivedIds.has(incoming.id) && !this.byId.has(incoming.id)) continue;
      const item = this.withMarks(incoming);
      const held = this.byId.get(item.id);
      if (!held) {
        this.byId.set(item.id, item);
        added.push(item);
        if (this.newest === undefined || item.id > this.newest) this.newest = item.id;
        this.sorted = null;
      } else if ((item.read && !held.read) || (item.seen && !held.seen)) {
        this.byId.set(item.id, { ...held, read: held.read || item.read, seen: held.seen || item.seen });
        this.sorted = null;
      }
    }
    return added;
  }

  /**
   * Counts from the server (REST counts, a `read_state`, `item_state` or `archived_read` message).
   * With `newestId` they are exact for what the server had: the live arrivals counted here above it
   * are added on top (the server had not written them yet), those at or below it are in them.
   * Without it (an older server) they replace the badge as they are.
   */
  setCounts(counts: BadgeCounts & { newestId?: string | null }, askedAfterArrival?: number): void {
    this.countsValue = { unread: counts.unread, unseen: counts.unseen, capped: counts.capped };
    if (counts.newestId === undefined) {
      this.countedThrough = undefined;
      this.liveCounted.clear();
      return;
    }
    const through = counts.newestId;
    this.countedThrough = through;
    const above: Notification[] = [];
    for (const [id, arrival] of [...this.liveCounted]) {
      const held = this.byId.get(id);
      const inAnswer = (through !== null && id <= through) || (askedAfterArrival !== undefined && arrival <= askedAfterArrival);
      if (!held || held.read || inAnswer) this.liveCounted.delete(id);
      else above.push(held);
    }
    this.addToCounts(above);
  }

  /** Where the live arrivals stand: counts asked for now include every arrival up to here. */
  arrivalMark(): number {
    return this.arrivals;
  }

  /** The badge as this device changed it (its own mark or action, confirmed by the server); what the server counted stays as it was. */
  adjustCounts(counts: BadgeCounts): void {
    this.countsValue = { unread: counts.unread, unseen: counts.unseen, capped: counts.capped };
  }

  /**
   * Live arrivals: +1 unread / unseen unless already read / seen, or already in the server's counts
   * (at or below their `newestId`). Answers the ids it left out for that reason: one written late
   * under an older id may not be in them after all, so the caller asks the server again.
   */
  countArrivals(arrivals: readonly Notification[]): string[] {
    const through = this.countedThrough;
    const counted: Notification[] = [];
    const skipped: string[] = [];
    for (const item of arrivals) {
      if (through !== undefined && through !== null && item.id <= through) skipped.push(item.id);
      else {
        counted.push(item);
        if (through !== undefined) this.liveCounted.set(item.id, (this.arrivals += 1));
      }
    }
    this.addToCounts(counted);
    return skipped;
  }

  private addToCounts(items: readonly Notification[]): void {
    let { unread, unseen, capped } = this.countsValue;
    for (const item of items) {
      if (!item.read) unread += 1;
      if (!item.seen) unseen += 1;
    }
    if (unread > this.countCap) {
      capped = true;
      unread = this.countCap;
    }
    unseen = Math.min(unseen, this.countCap);
    this.countsValue = { unread, unseen, capped };
  }

  /**
   * Everything at or below the read mark is read (and so seen): `mark` is the id the server names
   * (a read-all up to an id stops there, even inside its millisecond); without it, every id of
   * `readAt`'s millisecond or before. Returns true when something changed.
   */
  applyReadMark(readAt: string | null, mark?: string | null): boolean {
    const id = markOf(readAt, mark);
    if (id === null || (this.readMark !== null && id <= this.readMark)) return false;
    this.readMark = id;
    this.unreadOverMark.clear();
    return this.update((item) => (!item.read && item.id <= id ? { ...item, read: true, seen: true } : item));
  }

  /**
   * A read-all up to `upTo` (also one behind the read mark, from a device that had not caught up):
   * everything at or below it is read again, the ones marked unread over the mark included.
   */
  applyReadAllUpTo(upTo: string): boolean {
    for (const id of [...this.unreadOverMark]) if (id <= upTo) this.unreadOverMark.delete(id);
    return this.update((item) => (!item.read && item.id <= upTo ? { ...item, read: true, seen: true } : item));
  }

  /** Everything at or below the seen mark is seen (the bell was opened); nothing becomes read. */
  applySeenMark(seenAt: string | null, mark?: string | null): boolean {
    const id = markOf(seenAt, mark);
    if (id === null || (this.seenMark !== null && id <= this.seenMark)) return false;
    this.seenMark = id;
    return this.update((item) => (!item.seen && item.id <= id ? { ...item, seen: true } : item));
  }

  /** One notification opened: read and seen. Returns what it was before, or undefined when not held. */
  applySingleRead(id: string): Notification | undefined {
    const held = this.byId.get(id);
    if (!held) return undefined;
    if (!held.read || !held.seen) {
      this.byId.set(id, { ...held, read: true, seen: true });
      this.sorted = null;
    }
    return held;
  }

  /**
   * Counts recomputed from the held items. Exact when the held list reaches from the newest
   * notification down past every unread one (true right after a mark-all-read covered the rest).
   */
  countsFromHeld(): BadgeCounts {
    let unread = 0;
    let unseen = 0;
    for (const item of this.byId.values()) {
      if (!item.read) unread += 1;
      if (!item.seen) unseen += 1;
    }
    return { unread: Math.min(unread, this.countCap), unseen: Math.min(unseen, this.countCap), capped: unread > this.countCap };
  }

  /** Drops these notifications (archived, deleted, snoozed or retracted: gone from this list). Returns those held. */
  remove(ids: readonly string[]): Notification[] {
    const removed: Notification[] = [];
    remember(this.removedIds, ids);
    for (const id of ids) {
      const held = this.byId.get(id);
      if (!held) continue;
      this.byId.delete(id);
      removed.push(held);
    }
    if (removed.length > 0) {
      this.sorted = null;
      if (this.newest !== undefined && removed.some((item) => item.id === this.newest)) this.newest = [...this.byId.keys()].reduce<string | undefined>((max, id) => (max === undefined || id > max ? id : max), undefined);
    }
    return removed;
  }

  /** Unarchived: these may come back into the list. */
  restore(ids: readonly string[]): void {
    for (const id of ids) {
      this.removedIds.delete(id);
      if (this.archivedThrough !== null && id <= this.archivedThrough) this.unarchivedIds.add(id);
    }
  }

  /** Archive-all-read: every held notification that is read leaves the list. Returns their ids. */
  removeRead(): string[] {
    const ids = [...this.byId.values()].filter((item) => item.read).map((item) => item.id);
    this.remove(ids);
    // Read one by one but not loaded here: archived too, whenever they come.
    remember(this.removedIds, [...this.readIds]);
    if (this.readMark !== null && (this.archivedThrough === null || this.readMark > this.archivedThrough)) {
      this.archivedThrough = this.readMark;
      this.unarchivedIds.clear();
    }
    this.archiveExempt = new Set(this.unreadOverMark);
    return ids;
  }

  /** Marked unread (also below the read mark): unread again, still seen. Returns true when something changed. */
  applyUnread(ids: readonly string[]): boolean {
    for (const id of ids) {
      this.unreadOverMark.add(id);
      this.readIds.delete(id);
    }
    return this.updateIds(ids, (item) => (item.read ? { ...item, read: false } : item));
  }

  /** Marked seen one by one: seen, still unread. */
  applySeen(ids: readonly string[]): boolean {
    remember(this.seenIds, ids);
    return this.updateIds(ids, (item) => (item.seen ? item : { ...item, seen: true }));
  }

  /** Read one by one (bulk read from another device). */
  applyRead(ids: readonly string[]): boolean {
    remember(this.readIds, ids);
    // Read is seen, and stays seen when marked unread again.
    remember(this.seenIds, ids);
    return this.updateIds(ids, (item) => (item.read && item.seen ? item : { ...item, read: true, seen: true }));
  }

  /** Forgets every notification (counts and marks stay). */
  clear(): void {
    this.byId.clear();
    this.sorted = null;
    this.newest = undefined;
  }

  private withMarks(item: Notification): Notification {
    const underReadMark = this.readMark !== null && item.id <= this.readMark;
    const read = item.read || this.readIds.has(item.id) || (underReadMark && !this.unreadOverMark.has(item.id));
    // Marked unread stays seen: the read mark saw it.
    const seen = item.seen || read || underReadMark || this.seenIds.has(item.id) || (this.seenMark !== null && item.id <= this.seenMark);
    return read === item.read && seen === item.seen ? item : { ...item, read, seen };
  }

  private updateIds(ids: readonly string[], change: (item: Notification) => Notification): boolean {
    let changed = false;
    for (const id of ids) {
      const held = this.byId.get(id);
      if (!held) continue;
      const next = change(held);
      if (next !== held) {
        this.byId.set(id, next);
        changed = true;
      }
    }
    if (changed) this.sorted = null;
    return changed;
  }

  private update(change: (item: Notification) => Notification): boolean {
    let changed = false;
    for (const [id, item] of this.byId) {
      const next = change(item);
      if (next !== item) {
        this.byId.set(id, next);
        changed = true;
      }
    }
    if (changed) this.sorted = null;
    return changed;
  }
}

/** Adds ids to a bounded memory of ids (the newest additions kept). */
function remember(set: Set<string>, ids: readonly string[]): void {
  for (const id of ids) {
    set.delete(id);
    set.add(id);
  }
  for (const id of set) {
    if (set.size <= REMOVED_IDS_KEPT) break;
    set.delete(id);
  }
}

/** A mark as an id: the one given, else the highest id of the time's millisecond (null: no mark). */
function markOf(at: string | null, mark: string | null | undefined): string | null {
  if (mark) return mark;
  if (at === null) return null;
  const ms = Date.parse(at);
  return Number.isNaN(ms) ? null : highestIdAt(ms);
}
