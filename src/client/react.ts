/**
 * React bindings of the inbox client (`serverless-notifications/client/react`): `useInbox`,
 * `useCounts`, `usePreferences` over the client's own state with `useSyncExternalStore`, an
 * `InboxProvider` so components need not pass the client, and an unstyled `NotificationBell` and
 * `NotificationFeed`. React (18 or later) is an optional peer dependency: only this entry imports it.
 *
 * The app owns the client's life: create it once, `start()` it, `stop()` it on sign-out. The hooks
 * never start or stop it (StrictMode mounts twice, and a stopped client stays stopped).
 */
import { createContext, createElement, useContext, useEffect, useMemo, useSyncExternalStore, type ReactNode } from 'react';
import { storesOf, type PreferencesState } from './external-stores.js';
import type { InboxClient, InboxState } from './inbox-client.js';
import type { NotificationPreferences, PreferencesInput } from './rest.js';
import type { Counts, Notification } from './types.js';

export { countsStore, inboxStateStore, preferencesStore, storesOf } from './external-stores.js';
export type { ExternalStore, InboxStateSource, PreferencesSource, PreferencesState, PreferencesStore } from './external-stores.js';

const InboxClientContext = createContext<InboxClient | null>(null);

export interface InboxProviderProps {
  client: InboxClient;
  children?: ReactNode;
}

/** Makes `client` the one the hooks and components below use when they are not given one. */
export function InboxProvider({ client, children }: InboxProviderProps): ReactNode {
  return createElement(InboxClientContext.Provider, { value: client }, children);
}

/** The client passed, or the provider's; throws when there is neither. */
export function useInboxClient(client?: InboxClient): InboxClient {
  const provided = useContext(InboxClientContext);
  const resolved = client ?? provided;
  if (!resolved) throw new Error('no inbox client: pass one to the hook or render an <InboxProvider client={...}> above');
  return resolved;
}

export interface InboxView extends InboxState {
  loadMore(): Promise<boolean>;
  markAllRead(): Promise<void>;
  markAllSeen(): Promise<void>;
  markRead(id: string): Promise<void>;
}

/** The inbox (notifications newest first, counts, paging and connection state) and its actions; re-renders on every change. */
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
    }),
    [inbox, state],
  );
}

/** The badge counts; re-renders only when a count changes. */
export function useCounts(client?: InboxClient): Counts {
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

/** "3", or "99+" when the server capped the count. */
export function badgeText(count: number, capped: boolean): string {
  return capped ? `${count}+` : String(count);
}

/** The bell's text: the unseen count, with "+" only when it reached the cap (`capped` is said of unread, which unseen never exceeds). */
export function unseenBadgeText(counts: Counts): string {
  return badgeText(counts.unseen, counts.capped && counts.unseen >= counts.unread);
}

export interface NotificationBellProps {
  client?: InboxClient;
  /** Called on click (the badge is cleared with `markAllSeen`), e.g. to open the feed. */
  onOpen?: () => void;
  /** A failed `markAllSeen`. Default: `console.error`. */
  onError?: (error: unknown) => void;
  className?: string;
}

function logError(error: unknown): void {
  console.error('notification inbox:', error);
}

/** A button with the unseen count; a click marks everything seen (not read). Unstyled: class names `sn-bell`, `sn-bell-badge`. */
export function NotificationBell({ client, onOpen, onError = logError, className }: NotificationBellProps): ReactNode {
  const inbox = useInboxClient(client);
  const counts = useCounts(inbox);
  const label = counts.unseen > 0 ? `Notifications, ${unseenBadgeText(counts)} new` : 'Notifications';
  const open = () => {
    onOpen?.();
    if (counts.unseen > 0) inbox.markAllSeen().catch(onError);
  };
  return createElement(
    'button',
    { type: 'button', className: className ?? 'sn-bell', 'aria-label': label, onClick: open },
    '\u{1F514}',
    counts.unseen > 0 ? createElement('span', { className: 'sn-bell-badge', 'aria-hidden': true }, unseenBadgeText(counts)) : null,
  );
}

export interface NotificationFeedProps {
  client?: InboxClient;
  /** Renders one notification's content (default: title, body, time); the feed adds the read state and the click. */
  renderItem?: (notification: Notification) => ReactNode;
  emptyText?: string;
  /** A failed action (mark read, mark all read, load more). Default: `console.error`. */
  onError?: (error: unknown) => void;
  className?: string;
}

function defaultItem(notification: Notification): ReactNode {
  return createElement(
    'span',
    null,
    createElement('strong', null, notification.title),
    notification.body ? ` ${notification.body} ` : ' ',
    createElement('time', { dateTime: notification.createdAt }, new Date(notification.createdAt).toLocaleString()),
  );
}

/**
 * The list, newest first: a click on an item marks it read, "Mark all read" and "Load more" below.
 * Unstyled: class names `sn-feed`, `sn-feed-item` (+ `sn-unread`), `sn-feed-actions`.
 */
export function NotificationFeed({ client, renderItem = defaultItem, emptyText = 'No notifications yet', onError = logError, className }: NotificationFeedProps): ReactNode {
  const inbox = useInbox(client);
  const items = inbox.notifications.map((notification) =>
    createElement(
      'li',
      {
        key: notification.id,
        className: notification.read ? 'sn-feed-item' : 'sn-feed-item sn-unread',
        'data-id': notification.id,
        onClick: notification.read ? undefined : () => inbox.markRead(notification.id).catch(onError),
      },
      renderItem(notification),
    ),
  );
  return createElement(
    'section',
    { className: className ?? 'sn-feed', 'aria-busy': inbox.syncing },
    inbox.loaded && items.length === 0 ? createElement('p', null, emptyText) : createElement('ul', null, items),
    createElement(
      'div',
      { className: 'sn-feed-actions' },
      createElement('button', { type: 'button', disabled: inbox.counts.unread === 0, onClick: () => inbox.markAllRead().catch(onError) }, 'Mark all read'),
      inbox.loaded && inbox.hasMore ? createElement('button', { type: 'button', disabled: inbox.loadingMore, onClick: () => inbox.loadMore().catch(onError) }, 'Load more') : null,
    ),
  );
}
