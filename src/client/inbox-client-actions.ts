/**
 * What the user does to their inbox from this client: the marks, the per-item and bulk actions,
 * snooze, archive-all-read, preferences and filtered pages. Each goes to the server first, then is
 * applied to the synced list at once; counts follow from the server (`refreshCounts`).
 */
import type { InboxSync } from './inbox-sync.js';
import type { InboxActionsRest, InboxRest, ListPageRequest, NotificationPreferences, PreferencesInput, PreferencesRest } from './rest.js';
import type { Counts, InboxPage, ItemAction } from './types.js';
import { highestIdAt } from './ulid-time.js';

/** The mark the server set for a read-all / seen-all up to `upTo` answered with `at`: `upTo` when it bounds it, else `at`'s millisecond. */
function markUpTo(at: string, upTo: string | undefined): string | undefined {
  const ms = Date.parse(at);
  if (upTo === undefined || Number.isNaN(ms)) return undefined;
  const atMark = highestIdAt(ms);
  return upTo < atMark ? upTo : atMark;
}

export class InboxClientActions {
  constructor(
    private readonly rest: InboxRest & InboxActionsRest & PreferencesRest,
    private readonly sync: Pick<InboxSync, 'store' | 'applyLocal' | 'applyItemAction' | 'refreshCounts'>,
  ) {}

  /** Marks read everything up to the newest notification held (one O(1) write); later arrivals stay unread. */
  async markAllRead(): Promise<void> {
    const upTo = this.sync.store.newestId();
    const { readAt } = await this.rest.markAllRead(upTo);
    this.sync.applyLocal((store) => {
      store.applyReadMark(readAt, markUpTo(readAt, upTo));
      store.adjustCounts(store.countsFromHeld());
    });
  }

  /** Clears the badge (unseen) without marking anything read: call it when the bell opens. */
  async markAllSeen(): Promise<void> {
    const upTo = this.sync.store.newestId();
    const { seenAt } = await this.rest.markAllSeen(upTo);
    this.sync.applyLocal((store) => {
      store.applySeenMark(seenAt, markUpTo(seenAt, upTo));
      const counts = store.counts;
      store.adjustCounts({ ...counts, unseen: Math.min(store.countsFromHeld().unseen, counts.unread) });
    });
  }

  /** Marks one notification read. */
  async markRead(id: string): Promise<void> {
    await this.rest.markRead(id);
    this.sync.applyLocal((store) => {
      const before = store.applySingleRead(id);
      const counts = store.counts;
      if (counts.capped || !before) {
        void this.sync.refreshCounts();
      } else {
        store.adjustCounts({
          unread: Math.max(0, counts.unread - (before.read ? 0 : 1)),
          unseen: Math.max(0, counts.unseen - (before.seen ? 0 : 1)),
          capped: false,
        });
      }
    });
  }

  /** One action on one notification (archive, unarchive, unread, seen, delete). */
  async changeOne(id: string, action: Exclude<ItemAction, 'read'>): Promise<void> {
    await this.rest.changeOne(id, action);
    this.sync.applyItemAction(action, [id]);
    void this.sync.refreshCounts();
  }

  /** Hides one notification until `until`; it then comes back on top as a new unread arrival (pushed live). */
  async snooze(id: string, until: Date | string): Promise<{ until: string }> {
    const answer = await this.rest.snooze(id, typeof until === 'string' ? until : until.toISOString());
    this.sync.applyItemAction('snooze', [id]);
    void this.sync.refreshCounts();
    return answer;
  }

  /** Archives everything read (one write on the server): read notifications leave this list. */
  async archiveAllRead(): Promise<{ archivedAt: string }> {
    const answer = await this.rest.archiveAllRead();
    this.sync.applyLocal((store) => store.removeRead());
    return answer;
  }

  /** One action on up to 100 ids; answers which were changed and which are not in this user's view. */
  async bulk(action: ItemAction, ids: readonly string[]): Promise<{ updated: string[]; notFound: string[] }> {
    const answer = await this.rest.bulk(action, ids);
    this.sync.applyItemAction(action, answer.updated);
    void this.sync.refreshCounts();
    return answer;
  }

  /** A page with filters, not merged into the synced list (tabs, the archive). */
  listPage(request: ListPageRequest): Promise<InboxPage> {
    return this.rest.listPage(request);
  }

  /** The counts of one tab (a category of the catalog), capped like the badge. */
  countsOf(category: string): Promise<Counts> {
    return this.rest.countsOf(category);
  }

  getPreferences(): Promise<NotificationPreferences> {
    return this.rest.getPreferences();
  }

  savePreferences(input: PreferencesInput): Promise<NotificationPreferences> {
    return this.rest.putPreferences(input);
  }
}
