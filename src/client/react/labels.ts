/**
 * Every text the components show or announce, with English defaults. Pass a partial `labels`
 * (to a component or to `<InboxProvider labels>`) to translate or reword; the counts are functions
 * so a language can place and inflect the number.
 */
import type { InboxErrorKind } from '../inbox-error.js';

export interface InboxLabels {
  /** The bell's accessible name with nothing unseen, and the feed's heading and region name. */
  notifications: string;
  /** The bell's accessible name when `count` ("3", or "99+" at the cap) are unseen. */
  notificationsWithCount: (count: string) => string;
  /** Said before an unread item's title (and hidden from sight: the dot shows it). */
  unread: string;
  /** The per-item button. */
  markRead: string;
  markAllRead: string;
  loadMore: string;
  loading: string;
  empty: string;
  /** The socket was lost and is being reconnected (what is shown may be behind). */
  reconnecting: string;
  /** The browser says it is offline. */
  offline: string;
  retry: string;
  dismiss: string;
  /** The token was refused or could not be had. */
  errorUnauthorized: string;
  /** The service could not be reached. */
  errorNetwork: string;
  /** The service answered with an error. */
  errorServer: string;
}

export const defaultLabels: InboxLabels = {
  notifications: 'Notifications',
  notificationsWithCount: (count) => `Notifications, ${count} new`,
  unread: 'Unread',
  markRead: 'Mark as read',
  markAllRead: 'Mark all read',
  loadMore: 'Load more',
  loading: 'Loading notifications…',
  empty: 'No notifications yet',
  reconnecting: 'Reconnecting… new notifications may be late.',
  offline: 'You are offline. New notifications will arrive when you are back online.',
  retry: 'Try again',
  dismiss: 'Dismiss',
  errorUnauthorized: 'Your session has expired. Sign in again to see your notifications.',
  errorNetwork: 'Cannot reach the notification service. Check your connection.',
  errorServer: 'Notifications are unavailable right now.',
};

export function errorText(labels: InboxLabels, kind: InboxErrorKind): string {
  if (kind === 'unauthorized') return labels.errorUnauthorized;
  if (kind === 'network') return labels.errorNetwork;
  return labels.errorServer;
}
