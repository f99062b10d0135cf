/**
 * The inbox client as external stores (`subscribe` + `getSnapshot`), the shape React's
 * `useSyncExternalStore` reads (and Svelte or Vue can wrap). No framework import here: the React
 * entry (`./react.ts`) is a thin layer over these, and they are tested on their own.
 *
 * A snapshot is the same object until what it shows changes, so a subscriber re-renders only then.
 */
import type { InboxClient, InboxState } from './inbox-client.js';
import type { NotificationPreferences, PreferencesInput } from './rest.js';
import type { BadgeCounts } from './types.js';

export interface ExternalStore<T> {
  /** Calls `onChange` after every change; returns the unsubscribe function. */
  subscribe(onChange: () => void): () => void;
  getSnapshot(): T;
}

/** What the stores read of a client (an `InboxClient`, or a fake in tests). */
export type InboxStateSource = Pick<InboxClient, 'on' | 'getState'>;
export type PreferencesSource = Pick<InboxClient, 'getPreferences' | 'savePreferences'>;

export interface PreferencesState {
  /** The stored document; undefined until the first load answered. */
  preferences: NotificationPreferences | undefined;
  /** `idle` before the first `load()`. */
  status: 'idle' | 'loading' | 'ready' | 'error';
  saving: boolean;
  /** The last load or save failure; cleared by the next success. */
  error: Error | undefined;
}

export interface PreferencesStore extends ExternalStore<PreferencesState> {
  /** Loads once (again after a failure); concurrent calls share one request. Never rejects: a failure is in the state. */
  load(): Promise<void>;
  /** Loads again even when loaded. */
  reload(): Promise<void>;
  /** `PUT /preferences`; the state holds the stored answer. Rejects on failure (the state has the error too). */
  save(input: PreferencesInput): Promise<NotificationPreferences>;
}

function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

function subscribeToChanges(client: InboxStateSource, onChange: () => void): () => void {
  return client.on('change', () => onChange());
}

/** The whole inbox state; the client keeps one state object until something changes. */
export function inboxStateStore(client: InboxStateSource): ExternalStore<InboxState> {
  return { subscribe: (onChange) => subscribeToChanges(client, onChange), getSnapshot: () => client.getState() };
}

/** The badge counts only: a change elsewhere in the state (a page loaded, the socket state) keeps the same snapshot. */
export function countsStore(client: InboxStateSource): ExternalStore<BadgeCounts> {
  let last: BadgeCounts | undefined;
  return {
    subscribe: (onChange) => subscribeToChanges(client, onChange),
    getSnapshot() {
      const next = client.getState().counts;
      if (last && last.unread === next.unread && last.unseen === next.unseen && last.capped === next.capped) return last;
      last = next;
      return next;
    },
  };
}

export function preferencesStore(client: PreferencesSource): PreferencesStore {
  let state: PreferencesState = { preferences: undefined, status: 'idle', saving: false, error: undefined };
  const listeners = new Set<() => void>();
  let loading: Promise<void> | undefined;
  // A load that started before a save must not overwrite the saved document with the older one.
  let saves = 0;

  function set(change: Partial<PreferencesState>): void {
    state = { ...state, ...change };
    for (const listener of [...listeners]) listener();
  }

  function fetchPreferences(): Promise<void> {
    loading ??= (async () => {
      const savesBefore = saves;
      set({ status: 'loading' });
      try {
        const preferences = await client.getPreferences();
        if (saves === savesBefore) set({ preferences, status: 'ready', error: undefined });
        else set({ status: 'ready' });
      } catch (error) {
        set({ status: 'error', error: toError(error) });
      } finally {
        loading = undefined;
      }
    })();
    return loading;
  }

  return {
    subscribe(onChange) {
      listeners.add(onChange);
      return () => listeners.delete(onChange);
    },
    getSnapshot: () => state,
    load: () => (state.status === 'ready' ? Promise.resolve() : fetchPreferences()),
    reload: fetchPreferences,
    async save(input) {
      saves += 1;
      set({ saving: true });
      try {
        const preferences = await client.savePreferences(input);
        set({ preferences, saving: false, status: 'ready', error: undefined });
        return preferences;
      } catch (error) {
        set({ saving: false, error: toError(error) });
        throw error;
      }
    },
  };
}

interface ClientStores {
  inbox: ExternalStore<InboxState>;
  counts: ExternalStore<BadgeCounts>;
  preferences: PreferencesStore;
}

const storesByClient = new WeakMap<object, ClientStores>();

/** One set of stores per client, so every component of a page shares one preferences load. */
export function storesOf(client: InboxStateSource & PreferencesSource): ClientStores {
  let stores = storesByClient.get(client);
  if (!stores) {
    stores = { inbox: inboxStateStore(client), counts: countsStore(client), preferences: preferencesStore(client) };
    storesByClient.set(client, stores);
  }
  return stores;
}
