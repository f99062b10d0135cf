/** The hooks: the client's state through `useSyncExternalStore`, and the browser's online state and clock for the components. */
import { useEffect, useMemo, useState, useSyncExternalStore } from 'react';
import { storesOf, type PreferencesState } from '../external-stores.js';
import type { InboxClient, InboxState } from '../inbox-client.js';
import type { NotificationPreferences, PreferencesInput } from '../rest.js';
import type { BadgeCounts } from '../types.js';
import { useInboxClient } from './context.js';

export interface InboxView extends InboxState {
  loadMore(): Promise<boolean>;
  markAllRead(): Promise<void>;
  markAllSeen(): Promise<void>;
  markRead(id: string): Promise<void>;
  /** After `error`: load or catch up now (and reconnect), instead of after the backoff. */
  retry(): Promise<void>;
}

/**
 * The inbox (notifications newest first, counts, paging, connection state, and `error` when the
 * last load failed) and its actions; re-renders on every change.
 */
export function useInbox(client?: InboxClient): InboxView {
  const inbox = useInboxClient(client);
  const store = storesOf(inbox).inbox;
  const state = useSyncExternalStore(store.subscribe, store.getSnapshot, store.getSnapshot);
  return useMemo(
    () => ({
      ...state,
      loadMore: () => inbox.loadMore(),
      markAllRead: () => inbox.markAllRead(),
      markAllSeen: () => inbox.markAllSeen(),
      markRead: (id: string) => inbox.markRead(id),
      retry: () => inbox.retry(),
    }),
    [inbox, state],
  );
}

/** The badge counts; re-renders only when a count changes. */
export function useCounts(client?: InboxClient): BadgeCounts {
  const store = storesOf(useInboxClient(client)).counts;
  return useSyncExternalStore(store.subscribe, store.getSnapshot, store.getSnapshot);
}

export interface PreferencesView extends PreferencesState {
  save(input: PreferencesInput): Promise<NotificationPreferences>;
  reload(): Promise<void>;
}

/** The user's delivery preferences, loaded on first use (shared by every component of the client), and `save`. */
export function usePreferences(client?: InboxClient): PreferencesView {
  const store = storesOf(useInboxClient(client)).preferences;
  const state = useSyncExternalStore(store.subscribe, store.getSnapshot, store.getSnapshot);
  useEffect(() => {
    void store.load();
  }, [store]);
  return useMemo(() => ({ ...state, save: store.save, reload: store.reload }), [state, store]);
}

function subscribeToOnline(onChange: () => void): () => void {
  window.addEventListener('online', onChange);
  window.addEventListener('offline', onChange);
  return () => {
    window.removeEventListener('online', onChange);
    window.removeEventListener('offline', onChange);
  };
}

/** `navigator.onLine`, live; true on the server. */
export function useOnline(): boolean {
  return useSyncExternalStore(
    subscribeToOnline,
    () => navigator.onLine,
    () => true,
  );
}

/** The time now, moving on every `intervalMs` while mounted (relative times stay true). */
export function useNow(intervalMs = 30_000): Date {
  const [now, setNow] = useState(() => new Date(Date.now()));
  useEffect(() => {
    const timer = setInterval(() => setNow(new Date(Date.now())), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}
