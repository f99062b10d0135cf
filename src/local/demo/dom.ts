/** The demo page's elements, its config and the small DOM helpers its parts share (toasts, errors). */

export interface DemoConfig {
  ws: string;
  eventBusName: string;
}

const TOAST_MS = 6_000;

export function byId<T extends HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (!element) throw new Error(`#${id} is missing`);
  return element as T;
}

/** `document.createElement` with properties and children. */
export function element<K extends keyof HTMLElementTagNameMap>(tag: K, props: Record<string, unknown> = {}, ...children: Array<Node | string>): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  Object.assign(node, props);
  node.append(...children);
  return node;
}

export const config = JSON.parse(byId('demo-config').textContent ?? '{}') as DemoConfig;
export const ui = {
  identity: byId<HTMLFormElement>('identity'),
  tenant: byId<HTMLInputElement>('tenant'),
  user: byId<HTMLInputElement>('user'),
  actor: byId<HTMLInputElement>('actor'),
  connection: byId('connection'),
  bell: byId<HTMLButtonElement>('bell'),
  badge: byId('badge'),
  panel: byId('inbox-panel'),
  unreadSummary: byId('unread-summary'),
  markAllRead: byId<HTMLButtonElement>('mark-all-read'),
  list: byId<HTMLUListElement>('list'),
  listScroll: byId('list-scroll'),
  listStatus: byId('list-status'),
  sentinel: byId('sentinel'),
  types: byId('types'),
  enablePush: byId<HTMLButtonElement>('enable-push'),
  enableEmail: byId<HTMLButtonElement>('enable-email'),
  enableSms: byId<HTMLButtonElement>('enable-sms'),
  phone: byId<HTMLUListElement>('phone'),
  phoneNumber: byId('phone-number'),
  smsReply: byId<HTMLFormElement>('sms-reply'),
  smsReplyBody: byId<HTMLInputElement>('sms-reply-body'),
  mailbox: byId<HTMLUListElement>('mailbox'),
  toasts: byId('toasts'),
};

export function toast(title: string, body: string): void {
  const close = element('button', { type: 'button', className: 'toast-close', ariaLabel: 'Dismiss' }, '×');
  const node = element('div', { className: 'toast' }, element('div', { className: 'toast-title' }, title), close, body ? element('div', { className: 'toast-body' }, body) : '');
  close.addEventListener('click', () => node.remove());
  ui.toasts.append(node);
  setTimeout(() => node.remove(), TOAST_MS);
}

export function reportError(error: unknown): void {
  toast('Something went wrong', error instanceof Error ? error.message : String(error));
}
