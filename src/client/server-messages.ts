/**
 * What each server -> client WebSocket message does to the inbox client's synced state: a push is
 * merged (a `notification_ref` and a digest's ids beyond its bodies are fetched), another device's
 * actions and marks are applied, counts are taken from the server and asked again when they may
 * predate an arrival.
 */
import type { InboxClientEvents } from './inbox-events.js';
import type { InboxStore } from './inbox-store.js';
import type { BadgeCounts, Counts, ItemAction, Notification, ServerMessage } from './types.js';

/** The sync engine as the messages see it (`InboxSync`). */
export interface SyncTarget {
  readonly store: InboxStore;
  readonly settings: { countCap: number };
  /** Merges live notifications; returns the ones not held before (counted as arrivals). */
  arrive(notifications: readonly Notification[]): Notification[];
  /** Fetches notifications a push only named; returns the ones not held before. */
  fetchNamed(ids: readonly string[], type?: string): Promise<Notification[]>;
  applyItemAction(action: ItemAction | 'snooze', ids: readonly string[]): void;
  /** A local change a count answer may not include: applied to the store, then listeners told. */
  applyLocal(change: (store: InboxStore) => void): void;
  changed(): void;
  /** A push arrived that the counts may not include yet. */
  noteArrival(): void;
  /** A count answer now may predate the last arrival. */
  racedArrival(): boolean;
  refreshCounts(): Promise<Counts>;
  recheckCountsSoon(): void;
  refreshReadFlagsSoon(): void;
  emit<K extends keyof InboxClientEvents>(event: K, value: InboxClientEvents[K]): void;
}

/** The counts a message carries, with the newest id they include when the server sent it. */
function countsOf(message: { unread: number; unseen: number; capped: boolean; newestId?: string | null }): BadgeCounts & { newestId?: string | null } {
  return { unread: message.unread, unseen: message.unseen, capped: message.capped, ...(message.newestId !== undefined ? { newestId: message.newestId } : {}) };
}

export function applyServerMessage(sync: SyncTarget, message: ServerMessage): void {
  switch (message.type) {
    case 'notification': {
      const added = sync.arrive([message.notification]);
      for (const notification of added) sync.emit('notification', notification);
      break;
    }
    case 'notification_ref': {
      sync.noteArrival();
      void sync.fetchNamed([message.id], message.notificationType).then((added) => {
        for (const notification of added) sync.emit('notification', notification);
      });
      break;
    }
    case 'digest': {
      const bodies = message.notifications ?? [];
      const added = sync.arrive(bodies);
      const withBody = new Set(bodies.map((notification) => notification.id));
      const missing = (message.ids ?? []).filter((id) => !withBody.has(id) && !sync.store.has(id));
      if (missing.length === 0) {
        if (added.length > 0) sync.emit('digest', { count: message.count, notifications: added });
        break;
      }
      // One digest event once the rest is fetched, so a product toasts the digest once.
      void sync.fetchNamed(missing).then((fetched) => {
        const all = [...added, ...fetched].sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
        if (all.length > 0) sync.emit('digest', { count: message.count, notifications: all });
      });
      break;
    }
    case 'error':
      sync.emit('error', new Error(`server refused a message: ${message.code}: ${message.message}`));
      break;
    case 'item_state': {
      sync.applyItemAction(message.action, message.ids);
      sync.store.setCounts(countsOf(message));
      sync.changed();
      break;
    }
    case 'archived_read': {
      sync.applyLocal((store) => {
        store.removeRead();
        store.setCounts(countsOf(message));
      });
      break;
    }
    case 'retracted': {
      sync.applyLocal((store) => {
        // A snooze comeback goes with the notification it brings back.
        const retracted = new Set(message.ids);
        store.remove([...message.ids, ...store.list().filter((item) => item.comebackOf !== undefined && retracted.has(item.comebackOf)).map((item) => item.id)]);
        // Asked whether or not it was held: the counts may include one this list never loaded.
        void sync.refreshCounts().catch((error: unknown) => sync.emit('error', error instanceof Error ? error : new Error(String(error))));
      });
      break;
    }
    case 'read_state': {
      sync.applyLocal((store) => {
        store.applyReadMark(message.readAt, message.readMark);
        store.applySeenMark(message.seenAt, message.seenMark);
        if (message.ids) store.applyRead(message.ids);
        if (message.readUpTo) store.applyReadAllUpTo(message.readUpTo);
        const atCap = message.unread >= sync.settings.countCap;
        store.setCounts({ ...countsOf({ ...message, capped: message.capped ?? (atCap && store.counts.capped) }) });
        // Unknown whether there are more than the cap, or the count may predate a just-counted arrival.
        if ((message.capped === undefined && atCap) || sync.racedArrival()) sync.recheckCountsSoon();
        // More unread here than the server counts: another device read single notifications, and
        // read_state does not say which. Re-read the flags of the held unread ones.
        if (!atCap && store.countsFromHeld().unread > message.unread) sync.refreshReadFlagsSoon();
      });
      break;
    }
    default:
      break;
  }
}
