/**
 * The wire types of the public contract (CONTRACT.md, REST and WebSocket), declared here so the
 * client stays self-contained: it imports nothing from the server side, no AWS SDK, no Node module.
 */

export interface Actor {
  id: string;
  name?: string;
  [key: string]: unknown;
}

/** `Notification` of the REST and WebSocket contract. `id` is a ULID: sorting ids sorts by time. */
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
}

/** `GET /notifications/counts`. Both counts stop at a cap (99) and `capped` says so. */
export interface Counts {
  unread: number;
  unseen: number;
  capped: boolean;
}

export interface InboxPage {
  items: Notification[];
  nextCursor: string | null;
}

export interface NotificationMessage {
  type: 'notification';
  notification: Notification;
}

export interface DigestMessage {
  type: 'digest';
  count: number;
  notifications: Notification[];
}

export interface ReadStateMessage {
  type: 'read_state';
  readAt: string | null;
  seenAt: string | null;
  unread: number;
  unseen: number;
  /** Not in the contract today; honoured when a server sends it. */
  capped?: boolean;
}

export interface PongMessage {
  type: 'pong';
}

export type ServerMessage = NotificationMessage | DigestMessage | ReadStateMessage | PongMessage;

/**
 * Where the client gets its JWT. A function is called before every connect and request (cache in
 * it); `forceRefresh` is true after the server refused the current token.
 */
export type TokenSource = string | ((options: { forceRefresh: boolean }) => string | Promise<string>);

export type TimerHandle = unknown;

/** Time and timers, injectable so tests drive reconnects and keep-alives with a fake clock. */
export interface Clock {
  now(): number;
  setTimeout(callback: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** The subset of the WHATWG WebSocket the client uses; the browser's and the `ws` package's both fit. */
export interface WebSocketLike {
  readonly readyState: number;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code?: number; reason?: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
  send(data: string): void;
  close(code?: number, reason?: string): void;
}

export type WebSocketFactory = (url: string) => WebSocketLike;

/** `fetch` as the client calls it; the global one fits. */
export type FetchLike = (input: string, init?: { method?: string; headers?: Record<string, string>; body?: string }) => Promise<{
  status: number;
  ok: boolean;
  json(): Promise<unknown>;
  text(): Promise<string>;
}>;
