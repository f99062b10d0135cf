/**
 * Fakes for the client SDK's unit tests: a clock whose timers run only when the test advances it,
 * a WebSocket the test opens, feeds and drops, and an in-memory inbox server behind `fetch` that
 * follows the REST contract (pages newest first, `since`, `type`, cursors, capped counts, read/seen marks).
 */
import { notificationId } from '../../src/core/model/ids.js';
import type { Clock, FetchLike, Notification, ServerMessage, TimerHandle } from '../../src/client/index.js';
import { T0 } from './fixtures.js';

/** Lets pending promise callbacks (the client's awaited fetches) run. */
export async function flush(): Promise<void> {
  for (let i = 0; i < 5; i += 1) await new Promise((resolve) => setImmediate(resolve));
}

interface Timer {
  id: number;
  at: number;
  callback: () => void;
}

export class FakeClock implements Clock {
  private nowMs: number;
  private nextId = 1;
  private timers: Timer[] = [];

  constructor(startMs = T0) {
    this.nowMs = startMs;
  }

  now(): number {
    return this.nowMs;
  }

  setTimeout(callback: () => void, ms: number): TimerHandle {
    const timer = { id: this.nextId++, at: this.nowMs + Math.max(0, ms), callback };
    this.timers.push(timer);
    return timer.id;
  }

  clearTimeout(handle: TimerHandle): void {
    this.timers = this.timers.filter((timer) => timer.id !== handle);
  }

  /** Delays of the timers pending now, relative to now. */
  pendingDelays(): number[] {
    return this.timers.map((timer) => timer.at - this.nowMs).sort((a, b) => a - b);
  }

  /** Moves time forward, firing due timers in order and letting promises settle after each. */
  async advance(ms: number): Promise<void> {
    const end = this.nowMs + ms;
    for (;;) {
      await flush();
      const due = this.timers.filter((timer) => timer.at <= end).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      this.timers = this.timers.filter((timer) => timer !== due);
      this.nowMs = Math.max(this.nowMs, due.at);
      due.callback();
    }
    this.nowMs = end;
    await flush();
  }
}

export class FakeWebSocket {
  static readonly instances: FakeWebSocket[] = [];
  readyState = 0;
  onopen: ((event: unknown) => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onclose: ((event: { code?: number; reason?: string }) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;
  readonly sent: unknown[] = [];
  closedByClient: { code?: number; reason?: string } | undefined;

  constructor(readonly url: string) {
    FakeWebSocket.instances.push(this);
  }

  static reset(): void {
    FakeWebSocket.instances.length = 0;
  }

  static latest(): FakeWebSocket {
    const socket = FakeWebSocket.instances[FakeWebSocket.instances.length - 1];
    if (!socket) throw new Error('no socket was created');
    return socket;
  }

  get token(): string | null {
    return new URL(this.url).searchParams.get('token');
  }

  send(data: string): void {
    this.sent.push(JSON.parse(data));
  }

  close(code?: number, reason?: string): void {
    this.closedByClient = { code, reason };
    this.readyState = 3;
  }

  serverOpen(): void {
    this.readyState = 1;
    this.onopen?.({});
  }

  serverSend(message: ServerMessage): void {
    this.onmessage?.({ data: JSON.stringify(message) });
  }

  /** The server (or the network) ends the connection; `opened: false` = the handshake was refused. */
  serverClose(code = 1006): void {
    this.readyState = 3;
    this.onerror?.({});
    this.onclose?.({ code });
  }
}

export function aClientNotification(timeMs: number, eventId = `evt-${timeMs}`, overrides: Partial<Notification> = {}): Notification {
  return {
    id: notificationId({ tenantId: 'acme', type: overrides.type ?? 'mention.created', eventId, recipient: 'alice', timeMs }),
    type: 'mention.created',
    createdAt: new Date(timeMs).toISOString(),
    read: false,
    seen: false,
    actor: { id: 'bob', name: 'Bob' },
    title: 'Bob mentioned you',
    body: eventId,
    data: { postId: 'p1', excerpt: eventId },
    ...overrides,
  };
}

interface FakeCursor {
  before: string;
  since?: string;
}

/** One user's inbox behind a fake `fetch`, following CONTRACT.md's REST section. */
export class FakeInboxServer {
  private items: Notification[] = [];
  readMarkMs: number | null = null;
  seenMarkMs: number | null = null;
  readonly singleReads = new Set<string>();
  readonly requests: string[] = [];
  validTokens = new Set(['token-1']);
  /** Called before a request is answered; may throw to fail it. */
  beforeAnswer: ((path: string) => void | Promise<void>) | undefined;

  constructor(private readonly clock: { now(): number }) {}

  add(...notifications: Notification[]): void {
    this.items.push(...notifications.map((item) => ({ ...item, read: false, seen: false })));
  }

  private isRead(item: Notification): boolean {
    return (this.readMarkMs !== null && Date.parse(item.createdAt) <= this.readMarkMs) || this.singleReads.has(item.id);
  }

  private present(item: Notification): Notification {
    const read = this.isRead(item);
    return { ...item, read, seen: read || (this.seenMarkMs !== null && Date.parse(item.createdAt) <= this.seenMarkMs) };
  }

  counts(): { unread: number; unseen: number; capped: boolean } {
    const presented = this.items.map((item) => this.present(item));
    const unread = presented.filter((item) => !item.read).length;
    const unseen = presented.filter((item) => !item.seen).length;
    return { unread: Math.min(unread, 99), unseen: Math.min(unseen, 99), capped: unread > 99 };
  }

  readStateMessage(): ServerMessage {
    const counts = this.counts();
    return {
      type: 'read_state',
      readAt: this.readMarkMs === null ? null : new Date(this.readMarkMs).toISOString(),
      seenAt: this.seenMarkMs === null ? null : new Date(this.seenMarkMs).toISOString(),
      unread: counts.unread,
      unseen: counts.unseen,
    };
  }

  /** The pushed form of a stored notification. */
  pushed(id: string): Notification {
    const item = this.items.find((candidate) => candidate.id === id);
    if (!item) throw new Error(`no notification ${id}`);
    return this.present(item);
  }

  readonly fetch: FetchLike = async (input, init = {}) => {
    const url = new URL(input);
    const method = init.method ?? 'GET';
    this.requests.push(`${method} ${url.pathname}${url.search}`);
    await this.beforeAnswer?.(url.pathname);
    const token = (init.headers?.authorization ?? '').replace(/^Bearer /, '');
    if (!this.validTokens.has(token)) return respond(401, { error: { code: 'unauthorized', message: 'bad token' } });
    if (method === 'GET' && url.pathname === '/notifications') return respond(200, this.page(url.searchParams));
    if (method === 'GET' && url.pathname === '/notifications/counts') return respond(200, this.counts());
    if (method === 'POST' && url.pathname === '/notifications/read-all') {
      this.readMarkMs = Math.max(this.readMarkMs ?? 0, this.clock.now());
      return respond(200, { readAt: new Date(this.readMarkMs).toISOString() });
    }
    if (method === 'POST' && url.pathname === '/notifications/seen-all') {
      this.seenMarkMs = Math.max(this.seenMarkMs ?? 0, this.clock.now());
      return respond(200, { seenAt: new Date(this.seenMarkMs).toISOString() });
    }
    const single = url.pathname.match(/^\/notifications\/([^/]+)\/read$/);
    if (method === 'POST' && single) {
      const id = decodeURIComponent(single[1]!);
      if (!this.items.some((item) => item.id === id)) return respond(404, { error: { code: 'not_found', message: id } });
      this.singleReads.add(id);
      return respond(204, undefined);
    }
    return respond(404, { error: { code: 'not_found', message: url.pathname } });
  };

  private page(query: URLSearchParams): { items: Notification[]; nextCursor: string | null } {
    const limit = Number(query.get('limit') ?? 20);
    const cursorText = query.get('cursor');
    const cursor = cursorText ? (JSON.parse(atob(cursorText)) as FakeCursor) : undefined;
    const since = cursor?.since ?? query.get('since') ?? undefined;
    const before = cursor?.before;
    const type = query.get('type') ?? undefined;
    const matching = [...this.items]
      .sort((a, b) => (a.id < b.id ? 1 : -1))
      .filter((item) => (since === undefined || item.id > since) && (before === undefined || item.id < before) && (type === undefined || item.type === type));
    const page = matching.slice(0, limit);
    const last = page[page.length - 1];
    const nextCursor = matching.length > limit && last ? btoa(JSON.stringify({ before: last.id, since })) : null;
    return { items: page.map((item) => this.present(item)), nextCursor };
  }
}

function respond(status: number, body: unknown) {
  const text = body === undefined ? '' : JSON.stringify(body);
  return Promise.resolve({ status, ok: status >= 200 && status < 300, json: async () => JSON.parse(text) as unknown, text: async () => text });
}
