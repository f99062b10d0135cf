/**
 * The client's types. The wire shapes (REST and WebSocket) are the contract module's, re-exported
 * under the client's public names; importing them is types-only, so nothing of the server's
 * runtime (zod, AWS SDK, Node modules) reaches a browser bundle.
 */
import type { Counts, NotificationPage } from '../contract/wire.js';

export type {
  Actor,
  ArchivedReadMessage,
  ArchiveReadAnswer,
  BulkAnswer,
  ItemAction,
  ItemStateMessage,
  NotificationAction,
  RetractedMessage,
  SnoozeAnswer,
  ClientMessage,
  Counts,
  DigestMessage,
  ErrorMessage,
  Notification,
  NotificationMessage,
  NotificationPage,
  NotificationRefMessage,
  PingMessage,
  PongMessage,
  ReadAllAnswer,
  ReadStateMessage,
  SeenAllAnswer,
  ServerMessage,
} from '../contract/wire.js';

/** The badge: the server's counts without the id they were taken at (the client's state). */
export type BadgeCounts = Omit<Counts, 'newestId'>;

/** A page of `GET /notifications` (the client's name for the contract's `NotificationPage`). */
export type InboxPage = NotificationPage;

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
