/** The observable side of the inbox client: its state, its events and their listeners. */
import type { InboxError } from './inbox-error.js';
import type { ConnectionStatus } from './live-connection.js';
import type { BadgeCounts, Notification } from './types.js';

export interface InboxState {
  /** Newest first, each id once. */
  notifications: readonly Notification[];
  counts: BadgeCounts;
  /** Older pages exist (`loadMore()`). */
  hasMore: boolean;
  /** The first page has been loaded. */
  loaded: boolean;
  loadingMore: boolean;
  /** A catch-up (or the first load) is running. */
  syncing: boolean;
  connection: ConnectionStatus;
  /**
   * Why the last first load or catch-up failed (`kind`: `unauthorized`, `network`, `server`);
   * undefined once one succeeds. The client keeps retrying with backoff; `retry()` tries now.
   */
  error: InboxError | undefined;
}

export interface DigestEvent {
  count: number;
  /**
   * The digest's notifications this client did not hold yet, newest first, including the ones it
   * fetched because they did not fit in the message.
   */
  notifications: Notification[];
}

export interface InboxClientEvents {
  /** Any change of `getState()`. */
  change: InboxState;
  /** A notification pushed live (or fetched after a `notification_ref`) that this client did not hold yet (toast it). */
  notification: Notification;
  /** A digest pushed live with at least one notification this client did not hold yet. */
  digest: DigestEvent;
  /** A first load or catch-up finished. */
  synced: InboxState;
  error: Error;
}

type Listener<T> = (value: T) => void;

export function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/** The listeners of each event; a listener that throws is reported as an `error` event, never to the emitter. */
export class InboxEvents {
  private readonly listeners: { [K in keyof InboxClientEvents]: Set<Listener<InboxClientEvents[K]>> } = {
    change: new Set(),
    notification: new Set(),
    digest: new Set(),
    synced: new Set(),
    error: new Set(),
  };

  on<K extends keyof InboxClientEvents>(event: K, listener: Listener<InboxClientEvents[K]>): () => void {
    this.listeners[event].add(listener);
    return () => this.listeners[event].delete(listener);
  }

  has(event: keyof InboxClientEvents): boolean {
    return this.listeners[event].size > 0;
  }

  emit<K extends keyof InboxClientEvents>(event: K, value: InboxClientEvents[K]): void {
    for (const listener of [...this.listeners[event]]) {
      try {
        listener(value);
      } catch (error) {
        if (event !== 'error') this.emit('error', toError(error));
      }
    }
  }
}
