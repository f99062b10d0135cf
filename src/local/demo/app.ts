/**
 * The demo inbox page (browser). Everything inbox-related goes through the client SDK
 * (`src/client/`); the page only renders its state and calls its actions. Dev-only helpers:
 * `POST /dev/token` for tokens and `GET /dev/catalog` for the types and sample events.
 */
import { createInboxClient, type InboxClient, type InboxState, type Notification, type TokenSource } from 'serverless-notifications/client';
import { config, element, reportError, toast, ui } from './dom.js';
import { loadCatalog } from './publish.js';

let client: InboxClient | undefined;
/** The signed-in user's dev tokens (the channel helpers call the REST API and `/_dev/sms` with them). */
let tokens: ReturnType<typeof devTokenSource> | undefined;
let detachClient: Array<() => void> = [];
let renderedState: InboxState | undefined;

// ---- identity and dev tokens ------------------------------------------------------------------

/** Caches the short-lived dev token and asks for a new one shortly before it expires. */
function devTokenSource(tenantId: string, userId: string): Extract<TokenSource, (...args: never[]) => unknown> {
  let cached: { token: string; expiresAtMs: number } | undefined;
  return async ({ forceRefresh }) => {
    if (!forceRefresh && cached && cached.expiresAtMs - Date.now() > 60_000) return cached.token;
    const response = await fetch('/dev/token', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tenantId, userId }),
    });
    if (!response.ok) throw new Error(`dev token refused: ${response.status}`);
    const body = (await response.json()) as { token: string; expiresAt: string };
    cached = { token: body.token, expiresAtMs: Date.parse(body.expiresAt) };
    return cached.token;
  };
}

function signIn(tenantId: string, userId: string): void {
  for (const detach of detachClient) detach();
  detachClient = [];
  client?.stop();
  renderedState = undefined;
  ui.list.replaceChildren();
  closePanel(false);
  const url = new URL(location.href);
  url.searchParams.set('tenant', tenantId);
  url.searchParams.set('user', userId);
  history.replaceState(null, '', url);
  document.title = `${userId}@${tenantId} · Inbox demo`;

  tokens = devTokenSource(tenantId, userId);
  ui.phone.replaceChildren();
  ui.phoneNumber.textContent = '';
  const inbox = createInboxClient({ httpUrl: location.origin, wsUrl: config.ws, token: tokens, pageSize: 15 });
  client = inbox;
  detachClient.push(
    inbox.subscribe(render),
    inbox.on('notification', (notification) => toast(notification.title, notification.body)),
    inbox.on('digest', ({ count, notifications }) => toast(digestTitle(count, notifications), [...new Set(notifications.map((item) => item.title))].slice(0, 3).join(' · '))),
    inbox.on('error', (error) => console.warn('[inbox]', error.message)),
  );
  void inbox.start();
  void loadCatalog();
  void refreshChannels().catch(() => undefined);
}

ui.identity.addEventListener('submit', (event) => {
  event.preventDefault();
  if (!ui.identity.reportValidity()) return;
  signIn(ui.tenant.value.trim(), ui.user.value.trim());
});

// ---- rendering ----------------------------------------------------------------------------------

const relativeTime = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
function ago(iso: string): string {
  const seconds = Math.round((Date.parse(iso) - Date.now()) / 1000);
  if (Math.abs(seconds) < 45) return 'just now';
  const minutes = Math.round(seconds / 60);
  if (Math.abs(minutes) < 60) return relativeTime.format(minutes, 'minute');
  const hours = Math.round(minutes / 60);
  if (Math.abs(hours) < 24) return relativeTime.format(hours, 'hour');
  return relativeTime.format(Math.round(hours / 24), 'day');
}

function badgeText(state: InboxState): string {
  const { unseen, capped } = state.counts;
  return capped && unseen >= 99 ? '99+' : String(unseen);
}

const CONNECTION_LABELS: Record<InboxState['connection'], string> = {
  idle: 'Not connected',
  connecting: 'Connecting…',
  open: 'Live',
  waiting: 'Reconnecting…',
  stopped: 'Offline',
};

function renderItem(notification: Notification): HTMLLIElement {
  const stateLabel = notification.read ? '' : 'Unread: ';
  const button = element(
    'button',
    { type: 'button', className: 'item-button' },
    element('span', { className: 'dot' }),
    element(
      'span',
      {},
      element('span', { className: 'sr-only' }, stateLabel),
      element('div', { className: 'item-title' }, notification.title),
      notification.body ? element('div', { className: 'item-body' }, notification.body) : '',
      element('div', { className: 'item-meta' }, element('time', { dateTime: notification.createdAt, title: notification.createdAt }, ago(notification.createdAt)), element('span', { className: 'chip' }, notification.type)),
    ),
  );
  button.addEventListener('click', () => {
    if (!notification.read) void client?.markRead(notification.id).catch(reportError);
  });
  const item = element('li', { className: `item ${notification.read ? 'read' : 'unread'}` }, button, itemActions(notification));
  item.dataset.id = notification.id;
  return item;
}

/** The row's actions: the notification's link (the SDK gets only http/https ones), archive, unread, snooze. */
function itemActions(notification: Notification): HTMLDivElement {
  const action = (label: string, run: () => Promise<unknown>) => {
    const button = element('button', { type: 'button', className: 'item-action' }, label);
    button.addEventListener('click', () => void run().catch(reportError));
    return button;
  };
  const actions = element('div', { className: 'item-actions' });
  if (notification.actionUrl) actions.append(element('a', { className: 'item-action', href: notification.actionUrl, target: '_blank', rel: 'noopener noreferrer' }, 'Open link'));
  actions.append(action('Archive', () => client!.archive(notification.id)));
  if (notification.read) actions.append(action('Mark unread', () => client!.markUnread(notification.id)));
  actions.append(action('Snooze 10 s', () => client!.snooze(notification.id, new Date(Date.now() + 10_000))));
  return actions;
}

/** Re-renders only the rows whose notification object changed (the store keeps unchanged ones). */
const rowCache = new WeakMap<Notification, HTMLLIElement>();
function render(state: InboxState): void {
  renderedState = state;
  const { unseen, unread } = state.counts;
  ui.badge.hidden = unseen === 0;
  ui.badge.textContent = badgeText(state);
  ui.bell.setAttribute('aria-label', unseen === 0 ? 'Notifications' : `Notifications, ${badgeText(state)} unseen`);
  ui.unreadSummary.textContent = unread === 0 ? 'all read' : `${state.counts.capped ? '99+' : unread} unread`;
  ui.markAllRead.disabled = unread === 0;
  ui.connection.textContent = CONNECTION_LABELS[state.connection];
  ui.connection.dataset.state = state.connection;

  const rows = state.notifications.map((notification) => {
    let row = rowCache.get(notification);
    if (!row) {
      row = renderItem(notification);
      rowCache.set(notification, row);
    }
    return row;
  });
  const current = Array.from(ui.list.children);
  if (rows.length !== current.length || rows.some((row, index) => row !== current[index])) ui.list.replaceChildren(...rows);

  ui.listStatus.textContent = !state.loaded
    ? 'Loading…'
    : state.loadingMore
      ? 'Loading older notifications…'
      : state.notifications.length === 0
        ? 'Nothing here yet. Publish an event below.'
        : state.hasMore
          ? ''
          : "You're all caught up.";
  if (!ui.panel.hidden) maybeLoadMore();
}

// ---- the bell panel -----------------------------------------------------------------------------

function openPanel(): void {
  ui.panel.hidden = false;
  ui.bell.setAttribute('aria-expanded', 'true');
  // Opening the bell clears the badge without marking anything read.
  if (client && (renderedState?.counts.unseen ?? 0) > 0) void client.markAllSeen().catch(reportError);
  maybeLoadMore();
}

function closePanel(returnFocus = true): void {
  if (ui.panel.hidden) return;
  ui.panel.hidden = true;
  ui.bell.setAttribute('aria-expanded', 'false');
  if (returnFocus) ui.bell.focus();
}

ui.bell.addEventListener('click', () => (ui.panel.hidden ? openPanel() : closePanel()));
ui.markAllRead.addEventListener('click', () => void client?.markAllRead().catch(reportError));
document.addEventListener('keydown', (event) => {
  if (event.key === 'Escape') closePanel();
});
document.addEventListener('click', (event) => {
  const target = event.target as Node;
  if (!ui.panel.hidden && !ui.panel.contains(target) && !ui.bell.contains(target)) closePanel(false);
});

/** Infinite scroll: the sentinel under the list coming into view loads the next page. */
function maybeLoadMore(): void {
  const state = renderedState;
  if (!client || !state || ui.panel.hidden || !state.loaded || !state.hasMore || state.loadingMore) return;
  const scroller = ui.listScroll.getBoundingClientRect();
  const sentinel = ui.sentinel.getBoundingClientRect();
  if (sentinel.top <= scroller.bottom + 120) void client.loadMore().catch(reportError);
}
new IntersectionObserver(() => maybeLoadMore(), { root: ui.listScroll, rootMargin: '0px 0px 120px 0px' }).observe(ui.sentinel);
ui.listScroll.addEventListener('scroll', () => maybeLoadMore(), { passive: true });

// ---- digest toasts ---------------------------------------------------------------------------------------

function digestTitle(count: number, notifications: readonly Notification[]): string {
  const types = new Set(notifications.map((item) => item.type));
  const noun = types.size === 1 ? `${[...types][0]!.split('.')[0]}` : 'notification';
  return `${count} new ${noun}${count === 1 ? '' : 's'}`;
}

ui.actor.addEventListener('change', () => void loadCatalog());

// ---- simulated phone and mailbox (local SNS, SMS and SES stand-ins) -------------------------------

interface RecordedDevice { token: string; customUserData: string; received: { messageId: string; atMs: number; title?: string; body?: string }[] }
interface RecordedMail { messageId: string; atMs: number; to: string[]; subject: string; text: string }
interface RecordedText { messageId: string; atMs: number; from: string; body: string; keywordResponse?: true }
interface PhoneTexts { phoneNumber: string | null; optedOut: boolean; texts: RecordedText[] }

async function channelCall(method: string, path: string, body?: unknown): Promise<Response> {
  const token = await tokens!({ forceRefresh: false });
  const response = await fetch(path, { method, headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status}`);
  return response;
}

ui.enablePush.addEventListener('click', () => {
  // A made-up APNs token per user: the stand-in records what that "phone" would have shown.
  const token = Array.from(`${ui.tenant.value}/${ui.user.value}`).map((character) => character.charCodeAt(0).toString(16)).join('').padEnd(64, '0').slice(0, 64);
  void channelCall('POST', '/devices', { platform: 'apns', token })
    .then(() => channelCall('PUT', '/push-consent', { version: 'demo' }))
    .then(() => toast('Phone registered', 'push consent given; mentions now reach the phone'), reportError);
});

ui.enableEmail.addEventListener('click', () => {
  void channelCall('PUT', '/email-address').then(() => toast('Email on', 'comments now arrive as (digest) emails'), reportError);
});

/** Texts: mentions by SMS switched on in the user's preferences (kept as they are otherwise), then the opt-in with the token's verified number. */
async function enableTexts(): Promise<void> {
  const { updatedAt: _updatedAt, ...preferences } = (await (await channelCall('GET', '/preferences')).json()) as { updatedAt: unknown; channels?: Record<string, Record<string, boolean>> };
  const channels = { ...preferences.channels, 'mention.created': { ...preferences.channels?.['mention.created'], sms: true } };
  await channelCall('PUT', '/preferences', { ...preferences, channels });
  await channelCall('PUT', '/sms', { version: 'demo' });
}

ui.enableSms.addEventListener('click', () => {
  void enableTexts().then(() => toast('Texts on', 'mentions reach the phone by SMS once the preferences cache has expired (PREFERENCES_CACHE_TTL_MS, 30 s by default); reply STOP, START or HELP from it'), reportError);
});

/** The phone's own texts: `/_dev/sms` answers those of the token's verified number only. */
let phoneNumber: string | null = null;

ui.smsReply.addEventListener('submit', (event) => {
  event.preventDefault();
  const body = ui.smsReplyBody.value.trim();
  if (!phoneNumber || !body) return;
  void fetch('/_dev/sms/inbound', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ from: phoneNumber, body }) })
    .then((response) => {
      if (!response.ok) throw new Error(`text from the phone: ${response.status}`);
      ui.smsReplyBody.value = '';
      return refreshChannels();
    })
    .catch(reportError);
});

async function refreshChannels(): Promise<void> {
  if (!tokens) return;
  const tenantId = ui.tenant.value.trim();
  const userId = ui.user.value.trim();
  const [push, mail, sms] = await Promise.all([
    channelCall('GET', '/_dev/push').then((response) => response.json() as Promise<{ devices: RecordedDevice[] }>),
    channelCall('GET', '/_dev/mail').then((response) => response.json() as Promise<{ mails: RecordedMail[] }>),
    channelCall('GET', '/_dev/sms').then((response) => response.json() as Promise<PhoneTexts>),
  ]);
  // The answer of a user signed out meanwhile is not shown.
  if (tenantId !== ui.tenant.value.trim() || userId !== ui.user.value.trim()) return;
  // The dev routes answer the token's own devices, mail and texts only.
  const pushes = push.devices.flatMap((device) => device.received.map((item) => ({ atMs: item.atMs, node: element('li', { className: 'push' }, element('span', { className: 'kind' }, 'Push'), element('br'), element('strong', {}, item.title ?? ''), element('br'), item.body ?? '') })));
  const texts = sms.texts.map((text) => ({ atMs: text.atMs, node: element('li', { className: 'sms' }, element('span', { className: 'kind' }, `SMS from ${text.from}`), element('br'), text.body) }));
  ui.phone.replaceChildren(...[...pushes, ...texts].sort((a, b) => b.atMs - a.atMs).slice(0, 30).map((item) => item.node));
  phoneNumber = sms.phoneNumber;
  ui.phoneNumber.textContent = phoneNumber === null ? 'No verified number' : `Number ${phoneNumber}${sms.optedOut ? ' (opted out: reply START)' : ''}`;
  const mails = [...mail.mails].sort((a, b) => b.atMs - a.atMs);
  ui.mailbox.replaceChildren(...mails.slice(0, 20).map((item) => element('li', {}, element('strong', {}, item.subject), element('br'), item.text.split('\n\nUnsubscribe:')[0] ?? '')));
}

setInterval(() => void refreshChannels().catch(() => undefined), 1_500);

// ---- start ----------------------------------------------------------------------------------------

const params = new URLSearchParams(location.search);
ui.tenant.value = params.get('tenant') ?? ui.tenant.value;
ui.user.value = params.get('user') ?? ui.user.value;
ui.actor.value = params.get('actor') ?? ui.actor.value;
signIn(ui.tenant.value, ui.user.value);
