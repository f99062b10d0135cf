/**
 * The client's copy of one user's inbox: notifications keyed by id (a repeat is dropped, whichever
 * path it came by: live push, digest, catch-up or history page), kept newest first by id (ULIDs sort
 * by time), with the read/seen marks applied locally and the badge counts. Pure: no I/O, no timers.
 */
import type { BadgeCounts, Notification } from './types.js';
import { timeOfId } from './ulid-time.js';

/** The server's cap (CONTRACT.md: counts stop at a cap, e.g. 99, and say so). */
export const DEFAULT_COUNT_CAP = 99;

export class InboxStore {
  private readonly byId = new Map<string, Notification>();
  private sorted: readonly Notification[] | null = null;
  private newest: string | undefined;
  private readAtMs: number | null = null;
  private seenAtMs: number | null = null;
  private countsValue: BadgeCounts = { unread: 0, unseen: 0, capped: false };
  /**
   * The newest unread id the last server counts included (`Counts.newestId`); undefined when the
   * server did not say (an older server, or no answer yet). A push at or below it is already counted.
   */
  private countedThrough: string | null | undefined;
  /** Live arrivals counted here, above `countedThrough`: the next server answer may not include them. */
  private readonly liveCounted = new Set<string>();

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
  setCounts(counts: BadgeCounts & { newestId?: string | null }): void {
    this.countsValue = { unread: counts.unread, unseen: counts.unseen, capped: counts.capped };
    if (counts.newestId === undefined) {
      this.countedThrough = undefined;
      this.liveCounted.clear();
      return;
    }
    const through = counts.newestId;
    this.countedThrough = through;
    const above: Notification[] = [];
    for (const id of [...this.liveCounted]) {
      const held = this.byId.get(id);
      if (!held || (through !== null && id <= through)) this.liveCounted.delete(id);
      else above.push(held);
    }
    this.addToCounts(above);
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
        if (through !== undefined) this.liveCounted.add(item.id);
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
