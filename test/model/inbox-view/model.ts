/**
 * The reference model of one user's inbox view (issue 25): a plain list of notifications, each with
 * its own flags, changed directly by every action and arrival. It states docs/api/inbox-state.md and
 * nothing else: no marks to compare, no exceptions, no version counters. The system under test must
 * answer every page, `since`, count and per-item answer exactly as this model does.
 *
 * Ids are the system's rule (`model/ids.ts`): the model predicts them from the event and its arrival,
 * so an id that keeps an old stamp where it should not shows up as a divergence.
 */
import { idUpperBoundAt, notificationId, timeOfId } from '../../../src/core/model/ids.js';
import { feedRecipient, recipientNotificationId } from '../../../src/core/model/recipient-ids.js';
import { snoozeReturnId } from '../../../src/core/actions/inbox-actions.js';

export const COUNT_CAP = 99;
export const MIN_SNOOZE_MS = 1_000;
export const MAX_SNOOZE_MS = 30 * 86_400_000;

export type ItemAction = 'read' | 'unread' | 'seen' | 'archive' | 'unarchive' | 'delete';

/** One notification of the user's view as the model keeps it. */
export interface ModelItem {
  id: string;
  type: string;
  /** `own` (the user's partition) or the celebrity whose feed holds it. */
  source: string;
  /** The producer event (type + id) it belongs to: a retraction of it hides the item and its comebacks. */
  event: string;
  /** Visible from (its arrival; a snooze comeback: its `until`). */
  fromMs: number;
  /** When it landed, in the model's order of landings and retractions. */
  landedAt: number;
  expiresAtMs: number;
  read: boolean;
  seen: boolean;
  archived: boolean;
  deleted: boolean;
  snoozed: boolean;
  /** A snooze comeback: the id of the notification it brings back first (the root of a chain). */
  comebackOf?: string;
}

export interface ModelFilter {
  read?: boolean;
  archived?: boolean;
  types?: readonly string[];
}

export interface ModelCounts {
  unread: number;
  unseen: number;
  capped: boolean;
  /** The newest unread id counted (a client does not add its push again). */
  newestId: string | null;
}

/** A mark change, kept so an item that lands late under an old stamp gets what the marks did since then. */
type MarkEvent = { kind: 'read' | 'seen'; mark: string } | { kind: 'archive' };

export interface ModelSettings {
  tenantId: string;
  userId: string;
  ttlMs: number;
}

export const eventKey = (type: string, eventId: string): string => `${type}\u0000${eventId}`;

export class InboxViewModel {
  readonly items = new Map<string, ModelItem>();
  /** Retracted events: when the retraction came (model order) and the stamp it holds (the event's, or its own when first). */
  readonly retracted = new Map<string, { at: number; stampMs: number }>();
  /** Celebrity -> followedAt ms (only events at or after it are in the view). */
  readonly followed = new Map<string, number>();
  readMark: string | null = null;
  readAtMs: number | null = null;
  seenMark: string | null = null;
  seenAtMs: number | null = null;
  private readonly history: { atMs: number; change: MarkEvent }[] = [];
  /** Orders landings, retractions and comebacks' returns (several can share a millisecond). */
  private sequence = 0;
  private readonly returnedAt = new Map<string, number>();

  constructor(
    readonly settings: ModelSettings,
    public nowMs: number,
  ) {}

  // ---- ids (the system's rule) ----

  ownId(type: string, eventId: string, arrivalMs: number): string {
    return recipientNotificationId(this.settings.tenantId, type, eventId, this.settings.userId, arrivalMs);
  }

  feedId(type: string, eventId: string, actorId: string, arrivalMs: number): string {
    return notificationId({ tenantId: this.settings.tenantId, type, eventId, recipient: feedRecipient(actorId), timeMs: arrivalMs });
  }

  comebackId(of: Pick<ModelItem, 'id' | 'type'>, untilMs: number): string {
    return snoozeReturnId({ tenantId: this.settings.tenantId, userId: this.settings.userId }, of, untilMs);
  }

  // ---- arrivals ----

  /**
   * The user's item of an event lands now (or, `stampMs` older than now, lands late under the stamp
   * a partial earlier attempt kept: the marks set since that stamp apply to it as if it had been there).
   */
  land(item: Pick<ModelItem, 'id' | 'type' | 'source' | 'event'>, stampMs: number): void {
    if (this.items.has(item.id)) return;
    // A retraction lives as long as the stamp it holds (the inbox TTL, whole seconds): an event first sent after that is a new arrival.
    const retraction = this.retracted.get(item.event);
    if (retraction && Math.floor(stampMs / 1000) >= Math.floor(retraction.stampMs / 1000) + this.settings.ttlMs / 1000) this.retracted.delete(item.event);
    const landed: ModelItem = { ...item, fromMs: stampMs, landedAt: (this.sequence += 1), expiresAtMs: Math.floor(stampMs / 1000) * 1000 + this.settings.ttlMs, read: false, seen: false, archived: false, deleted: false, snoozed: false };
    for (const { atMs, change } of this.history) {
      if (atMs < stampMs) continue;
      if (change.kind === 'archive') {
        if (landed.read) landed.archived = true;
      } else if (item.id <= change.mark) {
        landed.seen = true;
        if (change.kind === 'read') landed.read = true;
      }
    }
    this.items.set(item.id, landed);
  }

  /** `stampMs`: the event's arrival stamp if it has one (else the retraction stamps it now). */
  retract(type: string, eventId: string, stampMs?: number): void {
    const key = eventKey(type, eventId);
    const existing = this.retracted.get(key);
    // One past the inbox TTL is gone with its stamp: a second retraction holds a stamp of its own.
    const expired = existing !== undefined && Math.floor(this.nowMs / 1000) >= Math.floor(existing.stampMs / 1000) + this.settings.ttlMs / 1000;
    if (!existing || expired) this.retracted.set(key, { at: (this.sequence += 1), stampMs: stampMs ?? this.nowMs });
  }

  /** Retracted before it was ever visible (before it arrived, or a comeback before its return): it must never be pushed. */
  retractedBeforeVisible(item: ModelItem): boolean {
    const at = this.retracted.get(item.event)?.at;
    if (at === undefined) return false;
    // A comeback becomes visible at its return; one retracted while it was away never shows.
    if (item.comebackOf !== undefined && item.fromMs > this.nowMs) return true;
    return item.comebackOf !== undefined ? at < (this.returnedAt.get(item.id) ?? Number.POSITIVE_INFINITY) : at < item.landedAt;
  }

  follow(celebrityId: string, followedAtMs: number): void {
    this.followed.set(celebrityId, followedAtMs);
  }

  // ---- what the user sees ----

  /** In the user's view: arrived, not expired, not deleted or snoozed away, not retracted, from a followed source. Archived items are in it (the archive tab). */
  inView(id: string): boolean {
    const item = this.items.get(id);
    if (!item) return false;
    if (item.fromMs > this.nowMs || item.expiresAtMs <= this.nowMs) return false;
    if (item.deleted || item.snoozed || this.retracted.has(item.event)) return false;
    if (item.source === 'own') return true;
    const followedAt = this.followed.get(item.source);
    return followedAt !== undefined && timeOfId(item.id) >= followedAt;
  }

  /** The list a filter shows, newest first: not archived unless `archived: true` is asked. */
  list(filter: ModelFilter = {}): ModelItem[] {
    const archived = filter.archived ?? false;
    return [...this.items.values()]
      .filter((item) => this.inView(item.id))
      .filter((item) => item.archived === archived)
      .filter((item) => filter.read === undefined || item.read === filter.read)
      .filter((item) => filter.types === undefined || filter.types.includes(item.type))
      .sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  }

  /** `since=<id>`: the list's notifications newer than it. */
  since(id: string, filter: ModelFilter = {}): ModelItem[] {
    return this.list(filter).filter((item) => item.id > id);
  }

  /** The list's unread and unseen (not archived), one type when a tab asks, capped at 99. */
  counts(types?: readonly string[]): ModelCounts {
    const items = this.list(types === undefined ? {} : { types });
    const unread = items.filter((item) => !item.read).length;
    const unseen = items.filter((item) => !item.seen).length;
    return { unread: Math.min(unread, COUNT_CAP), unseen: Math.min(unseen, COUNT_CAP), capped: unread > COUNT_CAP, newestId: items.find((item) => !item.read)?.id ?? null };
  }

  newestVisibleId(): string | undefined {
    return this.list()[0]?.id;
  }

  // ---- the "all" actions ----

  /** The mark of read-all / seen-all: `upTo` (the newest id the client rendered), never past now. */
  private markOf(upTo: string | undefined): string {
    const now = idUpperBoundAt(this.nowMs);
    return upTo === undefined || upTo >= now ? now : upTo;
  }

  /** Every notification at or below the mark is read (and seen); what arrived after `upTo` is untouched. Answers `readAt`. */
  readAll(upTo?: string): { readAt: string } {
    const mark = this.markOf(upTo);
    for (const item of this.items.values()) {
      if (item.id <= mark) {
        item.read = true;
        item.seen = true;
      }
    }
    this.history.push({ atMs: this.nowMs, change: { kind: 'read', mark } });
    if (this.readMark === null || mark >= this.readMark) {
      this.readMark = mark;
      this.readAtMs = upTo === undefined || mark !== upTo ? this.nowMs : timeOfId(mark);
    }
    return { readAt: new Date(this.readAtMs!).toISOString() };
  }

  /** Every notification at or below the mark is seen; nothing becomes read. */
  seenAll(upTo?: string): { seenAt: string } {
    const mark = this.markOf(upTo);
    for (const item of this.items.values()) if (item.id <= mark) item.seen = true;
    this.history.push({ atMs: this.nowMs, change: { kind: 'seen', mark } });
    if (this.seenMark === null || mark >= this.seenMark) {
      this.seenMark = mark;
      this.seenAtMs = upTo === undefined || mark !== upTo ? this.nowMs : timeOfId(mark);
    }
    return { seenAt: new Date(this.seenAtMs!).toISOString() };
  }

  /** Everything read now is archived; what arrives or is marked unread later is not. */
  archiveRead(): void {
    for (const item of this.items.values()) if (item.read) item.archived = true;
    this.history.push({ atMs: this.nowMs, change: { kind: 'archive' } });
  }

  // ---- per-item actions ----

  /** One action on one notification in the view; `notFound` (404) otherwise, and nothing changes. */
  /**
   * An escalation firing now for the user's own item: retracted, deleted or snoozed away, read or
   * archived cancel or skip it, seen skips it when it escalates only the unseen; else it is due.
   */
  escalationVerdict(id: string, when: 'unseen' | 'unread'): string {
    const item = this.items.get(id)!;
    if (this.retracted.has(item.event)) return 'retracted';
    if (item.deleted) return 'deleted';
    if (item.snoozed) return 'snoozed';
    if (item.read) return 'read';
    if (item.archived) return 'archived';
    if (when === 'unseen' && item.seen) return 'seen';
    return 'due';
  }

  act(action: ItemAction, id: string): 'ok' | 'notFound' {
    if (!this.inView(id)) return 'notFound';
    const item = this.items.get(id)!;
    if (action === 'read') {
      item.read = true;
      item.seen = true;
    } else if (action === 'unread') item.read = false;
    else if (action === 'seen') item.seen = true;
    else if (action === 'archive') item.archived = true;
    else if (action === 'unarchive') item.archived = false;
    else item.deleted = true;
    return 'ok';
  }

  /** Up to 100 ids: those in the view are changed, the others named. */
  bulk(action: ItemAction, ids: readonly string[]): { updated: string[]; notFound: string[] } {
    const unique = [...new Set(ids)];
    const updated = unique.filter((id) => this.inView(id));
    for (const id of updated) this.act(action, id);
    return { updated, notFound: unique.filter((id) => !updated.includes(id)) };
  }

  /**
   * Gone now; at `until` (1 s to 30 days ahead, and before the notification expires) it comes back on
   * top under a new id, unread and unseen, not archived, and expires with the notification it brings
   * back (a comeback never outlives its root, so neither a retraction of the root nor its record's
   * expiry can leave a comeback behind). Answers the comeback's id; `pastExpiry` (400) for an `until`
   * at or after the notification's expiry.
   */
  snooze(id: string, untilMs: number): { outcome: 'ok'; comebackId: string } | { outcome: 'notFound' | 'invalid' | 'pastExpiry' } {
    if (untilMs < this.nowMs + MIN_SNOOZE_MS || untilMs > this.nowMs + MAX_SNOOZE_MS) return { outcome: 'invalid' };
    if (!this.inView(id)) return { outcome: 'notFound' };
    const item = this.items.get(id)!;
    if (untilMs >= item.expiresAtMs) return { outcome: 'pastExpiry' };
    item.snoozed = true;
    const comebackId = this.comebackId(item, untilMs);
    this.items.set(comebackId, {
      id: comebackId,
      type: item.type,
      source: 'own',
      event: item.event,
      fromMs: untilMs,
      landedAt: (this.sequence += 1),
      // With the notification it brings back (a comeback's is its root's).
      expiresAtMs: item.expiresAtMs,
      read: false,
      seen: false,
      archived: false,
      deleted: false,
      snoozed: false,
      comebackOf: item.comebackOf ?? item.id,
    });
    return { outcome: 'ok', comebackId };
  }

  /** Time passes: comebacks due by then return (in order with the retractions around them). */
  advance(ms: number): void {
    this.nowMs += ms;
    for (const item of this.items.values()) if (item.comebackOf !== undefined && item.fromMs <= this.nowMs && !this.returnedAt.has(item.id)) this.returnedAt.set(item.id, (this.sequence += 1));
  }
}
