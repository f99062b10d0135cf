/**
 * The wire contract (CONTRACT.md, REST and WebSocket): the JSON shapes the server sends and the
 * client SDK reads, declared once. Types only, no imports and no runtime code, so the browser SDK
 * can import it without pulling zod, the AWS SDK or any Node module into its bundle. The server
 * builds its messages against these types (core/live/live-messages.ts, the REST handlers) and the
 * client re-exports them (client/types.ts): a change here changes both sides at once.
 */

/** Who caused a notification, as the producer sent it (`id` and `name`, plus any extra fields). */
export interface Actor {
  id: string;
  name?: string;
  [key: string]: unknown;
}

/** `Notification` of the REST and WebSocket contract. `id` is a ULID: sorting ids sorts by arrival. */
export interface Notification {
  id: string;
  type: string;
  createdAt: string;
  read: boolean;
  seen: boolean;
  actor: Actor;
  title: string;
  body: string;
  data: Record<string, unknown>;
  /** Present (true) only when the notification is archived (the list shows these with `archived=true`). */
  archived?: boolean;
  /**
   * Present only on a snooze comeback: the id of the notification it brings back (the first one, when
   * a comeback was snoozed again). A `retracted` message naming that id drops the comeback too.
   */
  comebackOf?: string;
  /** Where a click on the notification goes (http or https only). */
  actionUrl?: string;
  /** Up to two buttons, each a link (http or https) or an action id the app handles. */
  actions?: NotificationAction[];
}

/** A button of a notification: a label and either a `url` (http/https) or an `actionId`. */
export interface NotificationAction {
  label: string;
  url?: string;
  actionId?: string;
}

// ---- REST ----

/** `GET /notifications` (also with `since=`): newest first; `nextCursor` null on the last page. */
export interface NotificationPage {
  items: Notification[];
  nextCursor: string | null;
}

/** `GET /notifications/counts`. Both counts stop at a cap (99) and `capped` says so. */
export interface Counts {
  unread: number;
  unseen: number;
  capped: boolean;
  /**
   * The newest unread id these counts include, null when none (an addition to CONTRACT.md's shape):
   * a push of an id at or below it is already counted.
   */
  newestId: string | null;
}

/** `POST /notifications/read-all`. */
export interface ReadAllAnswer {
  readAt: string;
}

/** `POST /notifications/seen-all`. */
export interface SeenAllAnswer {
  seenAt: string;
}

/** `POST /notifications/archive-read`: everything read at that moment is archived (one write). */
export interface ArchiveReadAnswer {
  archivedAt: string;
}

/** `POST /notifications/{id}/snooze`: gone until `until`, then back as a new unread arrival. */
export interface SnoozeAnswer {
  until: string;
}

/** Per-item actions of `POST /notifications/bulk` and the `item_state` message. */
export type ItemAction = 'read' | 'unread' | 'seen' | 'archive' | 'unarchive' | 'delete';

/** `POST /notifications/bulk`: ids changed, and ids not in the caller's view (never touched). */
export interface BulkAnswer {
  updated: string[];
  notFound: string[];
}

// ---- WebSocket, server -> client ----

export interface NotificationMessage {
  type: 'notification';
  notification: Notification;
}

/** Sent instead of a notification too large for one message (128 KB); the client fetches it over REST. */
export interface NotificationRefMessage {
  type: 'notification_ref';
  id: string;
  notificationType: string;
  createdAt: string;
}

/**
 * Several info notifications for one user collapsed into one message, newest first. `ids` lists
 * every notification of the digest; `notifications` holds them all unless that would exceed the
 * message limit, in which case it holds the newest that fit and the client fetches the rest.
 */
export interface DigestMessage {
  type: 'digest';
  count: number;
  ids: string[];
  notifications: Notification[];
}

/** After a read or seen change on any of the user's devices. */
export interface ReadStateMessage {
  type: 'read_state';
  readAt: string | null;
  seenAt: string | null;
  unread: number;
  unseen: number;
  /** This server always sends it; CONTRACT.md does not promise it, so a client must cope without. */
  capped?: boolean;
  /** The newest unread id the counts include (as in `Counts`); a client must cope without. */
  newestId?: string | null;
  /**
   * The marks themselves (ids): what `readAt` / `seenAt` cover, to the id. A read-all up to an id
   * covers that id and not a later one of the same millisecond. A client must cope without.
   */
  readMark?: string | null;
  seenMark?: string | null;
  /** The notifications this change read one by one (a single read), so a device that has not loaded them yet knows. */
  ids?: string[];
  /** A read-all's mark: everything at or below it is read now, also when `readMark` stays higher (a device behind sent it). */
  readUpTo?: string;
}

/**
 * After a per-item change on any of the user's devices (one or several ids; a snooze too), with
 * the counts after it. Clients apply `action` to those ids in their store.
 */
export interface ItemStateMessage {
  type: 'item_state';
  action: ItemAction | 'snooze';
  ids: string[];
  unread: number;
  unseen: number;
  capped: boolean;
  /** The newest unread id the counts include (as in `Counts`); a client must cope without. */
  newestId?: string | null;
}

/** After archive-all-read on any device: every notification read at `archivedAt` is archived. */
export interface ArchivedReadMessage {
  type: 'archived_read';
  archivedAt: string;
  unread: number;
  unseen: number;
  capped: boolean;
  /** The newest unread id the counts include (as in `Counts`); a client must cope without. */
  newestId?: string | null;
}

/** A producer retracted an event: drop these notifications (this user's ids of it). */
export interface RetractedMessage {
  type: 'retracted';
  ids: string[];
}

export interface PongMessage {
  type: 'pong';
}

/** Answer to a client message the server does not understand. */
export interface ErrorMessage {
  type: 'error';
  code: string;
  message: string;
}

/** Every message the server sends on the WebSocket. */
export type ServerMessage =
  | NotificationMessage
  | NotificationRefMessage
  | DigestMessage
  | ReadStateMessage
  | ItemStateMessage
  | ArchivedReadMessage
  | RetractedMessage
  | PongMessage
  | ErrorMessage;

// ---- WebSocket, client -> server ----

/** Keep-alive; the server answers `{"type": "pong"}`. */
export interface PingMessage {
  action: 'ping';
}

/** Every message a client may send on the WebSocket. */
export type ClientMessage = PingMessage;
