/**
 * Client SDK for the notification inbox (browser and Node): `createInboxClient` for the whole
 * inbox, or the parts on their own (`createInboxRest`, `InboxStore`, `LiveConnection`).
 */
export { createInboxClient, InboxClient } from './inbox-client.js';
export type { DigestEvent, InboxClientEvents, InboxClientOptions, InboxState } from './inbox-client.js';
export { createInboxRest, InboxApiError, InboxTokenError, resolveToken } from './rest.js';
export { InboxError, errorKindOf } from './inbox-error.js';
export type { InboxErrorKind } from './inbox-error.js';
export type { NotificationPreferences, PreferencesInput } from './rest.js';
export type { InboxActionsRest, InboxRest, InboxRestOptions, ListPageRequest } from './rest.js';
export { InboxStore, DEFAULT_COUNT_CAP } from './inbox-store.js';
export { LiveConnection } from './live-connection.js';
export type { ConnectionStatus, LiveConnectionOptions, LiveConnectionTimings } from './live-connection.js';
export { backoffDelay, DEFAULT_BACKOFF } from './backoff.js';
export type { BackoffOptions } from './backoff.js';
export { idJustBelow, lowestIdAt, timeOfId } from './ulid-time.js';
export { systemClock } from './types.js';
export type * from './types.js';
