/**
 * React bindings of the inbox client (`serverless-notifications/client/react`): `useInbox`,
 * `useCounts`, `usePreferences` over the client's own state with `useSyncExternalStore`, an
 * `InboxProvider` so components need not pass the client (nor the labels, locale and time
 * formatter), and accessible components: `NotificationCenter` (the bell and its feed), or the
 * `NotificationBell` and `NotificationFeed` on their own. Styles are optional:
 * `serverless-notifications/client/styles.css`. React (18 or later) is an optional peer
 * dependency: only this entry imports it.
 *
 * The app owns the client's life: create it once, `start()` it, `stop()` it on sign-out. The hooks
 * never start or stop it (StrictMode mounts twice, and a stopped client stays stopped).
 */
export { countsStore, inboxStateStore, preferencesStore, storesOf } from './external-stores.js';
export type { ExternalStore, InboxStateSource, PreferencesSource, PreferencesState, PreferencesStore } from './external-stores.js';
export { InboxProvider, useInboxClient, usePresentation } from './react/context.js';
export type { InboxProviderProps, Presentation, PresentationProps } from './react/context.js';
export { useCounts, useInbox, useNow, useOnline, usePreferences } from './react/hooks.js';
export type { InboxView, PreferencesView } from './react/hooks.js';
export { BellIcon, NotificationBell, badgeText, unseenBadgeText } from './react/bell.js';
export type { NotificationBellProps } from './react/bell.js';
export { NotificationFeed } from './react/feed.js';
export type { NotificationFeedProps } from './react/feed.js';
export { NotificationItem, safeLinkUrl } from './react/feed-item.js';
export type { NotificationItemProps } from './react/feed-item.js';
export { NotificationCenter } from './react/center.js';
export type { NotificationCenterProps } from './react/center.js';
export { defaultLabels, errorText } from './react/labels.js';
export type { InboxLabels } from './react/labels.js';
export { absoluteTimeFormatter, relativeTimeFormatter } from './react/format-time.js';
export type { TimeFormatter } from './react/format-time.js';
export { classNames } from './react/class-names.js';
