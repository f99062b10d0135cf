/**
 * The client's copy of one user's inbox: notifications keyed by id (a repeat is dropped, whichever
 * path it came by: live push, digest, catch-up or history page), kept newest first by id (ULIDs sort
 * by time), with the read/seen marks applied locally and the badge counts. Pure: no I/O, no timers.
 */
import type { Counts, Notification } from './types.js';
import { timeOfId } from './ulid-time.js';

/** The server's cap (CONTRACT.md: counts stop at a cap, e.g. 99, and say so). */
export const DEFAULT_COUNT_CAP = 99;

export class InboxStore {
  private readonly byId = new Map<string, Notification>();
  private sorted: readonly Notification[] | null = null;
  private newest: string | undefined;
  private readAtMs: number | null = null;
  private seenAtMs: number | null = null;
  private countsValue: Counts = { unread: 0, unseen: 0, capped: false };

  constructor(private readonly countCap = DEFAULT_COUNT_CAP) {}

  /** Newest first. The same array is returned until the store changes. */
  list(): readonly Notification[] {
    this.sorted ??= [...this.byId.values()].sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
    return this.sorted;
  }

  get size(): number {
    return this.byId.size;
  }

  get counts(): Counts {
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

  /** Counts from an authoritative source (REST counts, a `read_state` message). */
  setCounts(counts: Counts): void {
    this.countsValue = { unread: counts.unread, unseen: counts.unseen, capped: counts.capped };
  }

  /** A live arrival the counts have not seen yet: +1 unread / unseen unless it is already read / seen. */
  countArrivals(arrivals: readonly Notification[]): void {
    let { unread, unseen, capped } = this.countsValue;
    for (const item of arrivals) {
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

  /** Everything created at or before `readAt` is read (and so seen). Returns true when something changed. */
  applyReadMark(readAt: string | null): boolean {
    if (readAt === null) return false;
    const ms = Date.parse(readAt);
    if (Number.isNaN(ms) || (this.readAtMs !== null && ms <= this.readAtMs)) return false;
    this.readAtMs = ms;
    return this.update((item) => (!item.read && timeOfId(item.id) <= ms ? { ...item, read: true, seen: true } : item));
  }

  /** Everything created at or before `seenAt` is seen (the bell was opened); nothing becomes read. */
  applySeenMark(seenAt: string | null): boolean {
    if (seenAt === null) return false;
    const ms = Date.parse(seenAt);
    if (Number.isNaN(ms) || (this.seenAtMs !== null && ms <= this.seenAtMs)) return false;
    this.seenAtMs = ms;
    return this.update((item) => (!item.seen && timeOfId(item.id) <= ms ? { ...item, seen: true } : item));
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
  countsFromHeld(): Counts {
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

  /** Archive-all-read: every held notification that is read leaves the list. Returns their ids. */
  removeRead(): string[] {
    const ids = [...this.byId.values()].filter((item) => item.read).map((item) => item.id);
    this.remove(ids);
    return ids;
  }

  /** Marked unread (also below the read mark): unread again, still seen. Returns true when something changed. */
  applyUnread(ids: readonly string[]): boolean {
    return this.updateIds(ids, (item) => (item.read ? { ...item, read: false } : item));
  }

  /** Marked seen one by one: seen, still unread. */
  applySeen(ids: readonly string[]): boolean {
    return this.updateIds(ids, (item) => (item.seen ? item : { ...item, seen: true }));
  }

  /** Read one by one (bulk read from another device). */
  applyRead(ids: readonly string[]): boolean {
    return this.updateIds(ids, (item) => (item.read && item.seen ? item : { ...item, read: true, seen: true }));
  }

  /** Forgets every notification (counts and marks stay). */
  clear(): void {
    this.byId.clear();
    this.sorted = null;
    this.newest = undefined;
  }

  private withMarks(item: Notification): Notification {
    const time = timeOfId(item.id);
    const read = item.read || (this.readAtMs !== null && time <= this.readAtMs);
    const seen = item.seen || read || (this.seenAtMs !== null && time <= this.seenAtMs);
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
