/**
 * The server -> client WebSocket messages (CONTRACT.md, WebSocket) and the rules that shape them:
 * the 128 KB message limit of API Gateway WebSocket APIs and the info digest collapse.
 */
import type { DigestMessage, NotificationMessage, NotificationRefMessage, ReadStateMessage, ServerMessage } from '../../contract/wire.js';
import type { RenderedNotification } from '../jobs/delivery-job.js';
import type { Notification } from '../model/notification.js';
import type { Counts } from '../model/read-state.js';
import type { ReadStateChange } from '../ports/inbox.js';

export type { DigestMessage, ErrorMessage, NotificationMessage, NotificationRefMessage, PongMessage, ReadStateMessage } from '../../contract/wire.js';

/** API Gateway WebSocket APIs refuse a message above 128 KB (PostToConnection answers 413). */
export const MAX_WEBSOCKET_MESSAGE_BYTES = 128 * 1024;

/** Every server -> client message: the wire contract's `ServerMessage`, under the server's name. */
export type LiveMessage = ServerMessage;

const encoder = new TextEncoder();

export function utf8Length(text: string): number {
  return encoder.encode(text).length;
}

export function encodeLiveMessage(message: LiveMessage): string {
  return JSON.stringify(message);
}

/** A freshly delivered notification: the rendered content under its per-recipient id, unread and unseen. */
export function liveNotification(id: string, rendered: RenderedNotification): Notification {
  return {
    id,
    type: rendered.type,
    createdAt: rendered.createdAt,
    read: false,
    seen: false,
    actor: rendered.actor,
    title: rendered.title,
    body: rendered.body,
    data: rendered.data,
    ...(rendered.actionUrl !== undefined ? { actionUrl: rendered.actionUrl } : {}),
    ...(rendered.actions !== undefined ? { actions: rendered.actions } : {}),
  };
}

/** `notification`, or a `notification_ref` when the full message would exceed `limitBytes`. */
export function notificationMessage(notification: Notification, limitBytes = MAX_WEBSOCKET_MESSAGE_BYTES): NotificationMessage | NotificationRefMessage {
  const full: NotificationMessage = { type: 'notification', notification };
  if (utf8Length(encodeLiveMessage(full)) <= limitBytes) return full;
  return { type: 'notification_ref', id: notification.id, notificationType: notification.type, createdAt: notification.createdAt };
}

export function notificationPayload(notification: Notification, limitBytes = MAX_WEBSOCKET_MESSAGE_BYTES): string {
  return encodeLiveMessage(notificationMessage(notification, limitBytes));
}

/** `digest` of the notifications, newest first, holding as many full notifications as fit in `limitBytes`. */
export function digestMessage(notifications: readonly Notification[], limitBytes = MAX_WEBSOCKET_MESSAGE_BYTES): DigestMessage {
  const newestFirst = [...notifications].sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  const ids = newestFirst.map((notification) => notification.id);
  const envelope = utf8Length(encodeLiveMessage({ type: 'digest', count: ids.length, ids, notifications: [] }));
  let size = envelope;
  let fitting = 0;
  for (const notification of newestFirst) {
    // +1 for the separating comma (over-counts the first by one byte, which keeps us under the limit).
    const next = size + utf8Length(JSON.stringify(notification)) + 1;
    if (next > limitBytes) break;
    size = next;
    fitting += 1;
  }
  return { type: 'digest', count: ids.length, ids, notifications: newestFirst.slice(0, fitting) };
}

export function digestPayload(notifications: readonly Notification[], limitBytes = MAX_WEBSOCKET_MESSAGE_BYTES): string {
  return encodeLiveMessage(digestMessage(notifications, limitBytes));
}

type MarksOf = { readAt: string | null; seenAt: string | null; readMark?: string | null; seenMark?: string | null };

export function readStateMessage(state: MarksOf, counts: Counts, change: ReadStateChange = {}): ReadStateMessage {
  return {
    type: 'read_state',
    readAt: state.readAt,
    seenAt: state.seenAt,
    ...(change.readIds !== undefined && change.readIds.length > 0 ? { ids: [...change.readIds] } : {}),
    ...(change.readUpTo !== undefined ? { readUpTo: change.readUpTo } : {}),
    ...(state.readMark !== undefined ? { readMark: state.readMark } : {}),
    ...(state.seenMark !== undefined ? { seenMark: state.seenMark } : {}),
    unread: counts.unread,
    unseen: counts.unseen,
    capped: counts.capped,
    newestId: counts.newestId,
  };
}

export function readStatePayload(state: MarksOf, counts: Counts, change?: ReadStateChange): string {
  return encodeLiveMessage(readStateMessage(state, counts, change));
}

export const PONG_PAYLOAD = encodeLiveMessage({ type: 'pong' });

export interface PendingPush<Tag> {
  notification: Notification;
  /** Info notification of a digestible type: may be collapsed with others for the same connection. */
  digestible: boolean;
  tag: Tag;
}

export interface PlannedMessage<Tag> {
  payload: string;
  /** The pushes this message carries (one, or all of a digest). */
  pushes: PendingPush<Tag>[];
}

/**
 * The messages for one connection, oldest first: several digestible pushes collapse into ONE
 * digest; everything else (urgent, non-digestible, a lone digestible) goes as its own message.
 */
export function planMessages<Tag>(pushes: readonly PendingPush<Tag>[], limitBytes = MAX_WEBSOCKET_MESSAGE_BYTES): PlannedMessage<Tag>[] {
  const oldestFirst = [...pushes].sort((a, b) => (a.notification.id < b.notification.id ? -1 : a.notification.id > b.notification.id ? 1 : 0));
  const digestible = oldestFirst.filter((push) => push.digestible);
  const collapse = digestible.length >= 2;
  const messages: PlannedMessage<Tag>[] = [];
  for (const push of oldestFirst) {
    if (collapse && push.digestible) continue;
    messages.push({ payload: notificationPayload(push.notification, limitBytes), pushes: [push] });
  }
  if (collapse) messages.push({ payload: digestPayload(digestible.map((push) => push.notification), limitBytes), pushes: digestible });
  return messages;
}
