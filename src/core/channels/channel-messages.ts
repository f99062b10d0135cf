/**
 * What a push, an email or a text says. A sensitive type never puts its content on a lock screen or in a
 * mailbox: its push and email carry a generic text and the notification id (the app fetches the
 * content after authentication). Several notifications of one user in one batch (a digestible type,
 * or pushes released from a hold) become one digest message.
 */
import type { EmailMessage, PushMessage } from './ports.js';

export interface ChannelItem {
  notificationId: string;
  type: string;
  title: string;
  body: string;
  sensitive: boolean;
}

const GENERIC_TITLE = 'New notification';
const GENERIC_BODY = 'Open the app to see it.';

/** APNs allows 4 KB per payload; FCM 4 KB of data: texts are cut well below. */
const MAX_PUSH_TEXT = 180;

const cut = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

export function pushMessageOf(items: readonly ChannelItem[]): PushMessage {
  const newest = items[items.length - 1]!;
  if (items.length === 1) {
    const title = newest.sensitive ? GENERIC_TITLE : cut(newest.title, MAX_PUSH_TEXT);
    const body = newest.sensitive ? GENERIC_BODY : cut(newest.body, MAX_PUSH_TEXT);
    return { title, body, data: { notificationId: newest.notificationId, type: newest.type }, collapseKey: newest.notificationId };
  }
  const anySensitive = items.some((item) => item.sensitive);
  const body = anySensitive ? GENERIC_BODY : cut(items.map((item) => item.title).join(' · '), MAX_PUSH_TEXT);
  return {
    title: `${items.length} new notifications`,
    body,
    // The ids let the app fetch exactly these (`since=` the oldest); the count fits any payload.
    data: { notificationId: newest.notificationId, count: String(items.length), oldestId: items[0]!.notificationId },
    collapseKey: `digest-${items[0]!.notificationId}`,
  };
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

export function emailMessageOf(to: string, items: readonly ChannelItem[], unsubscribeUrl: string): EmailMessage {
  const lines = items.map((item) => (item.sensitive ? { title: GENERIC_TITLE, body: GENERIC_BODY } : { title: item.title, body: item.body }));
  const subject = items.length === 1 ? cut(lines[0]!.title, 200) : `${items.length} new notifications`;
  const footer = `Unsubscribe: ${unsubscribeUrl}`;
  const text = [...lines.map((line) => (line.body ? `${line.title}\n${line.body}` : line.title)), '', footer].join('\n\n');
  const html = `<ul>${lines.map((line) => `<li><strong>${escapeHtml(line.title)}</strong>${line.body ? `<br>${escapeHtml(line.body)}` : ''}</li>`).join('')}</ul><p><a href="${escapeHtml(unsubscribeUrl)}">Unsubscribe</a></p>`;
  return { to, subject, text, html, unsubscribeUrl };
}

/** One GSM-7 segment is 160 characters (70 with any other character): a text is cut to one segment. */
const MAX_SMS_TEXT = 160;
const GENERIC_SMS_TEXT = 'You have a new notification. Open the app to see it.';

const isGsmOnly = (text: string) => /^[\x20-\x7E\n\r£¥èéùìòÇØøÅåΔΦΓΛΩΠΨΣΘΞÆæßÉ¡ÄÖÑÜ§¿äöñüà]*$/.test(text);

/** The text of one message: a sensitive type's says only that something arrived; several are a count. */
export function smsTextOf(items: readonly ChannelItem[]): string {
  const newest = items[items.length - 1]!;
  let text: string;
  if (items.some((item) => item.sensitive)) text = GENERIC_SMS_TEXT;
  else if (items.length === 1) text = `${newest.title}: ${newest.body}`;
  else text = `${items.length} new notifications: ${items.map((item) => item.title).join(' · ')}`;
  return cut(text, isGsmOnly(text) ? MAX_SMS_TEXT : 70);
}
