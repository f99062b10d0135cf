/**
 * The client store as part of the inbox view (issue 25, case 9): the real sync engine of the client
 * SDK (`InboxSync`: store, first load, catch-up, pushes, counts) on one connection of the user,
 * over a REST stand-in whose requests the harness answers from the real read service in any order:
 * a request is served (the server computes its answer now) and, separately, answered (the client
 * gets it), so pushes, other requests and writes can fall between the two. Pushes reach the client
 * in the order they were posted (one socket), at any time after, but before the answer to a request
 * the server served after posting them (the post had completed when that answer was computed).
 *
 * Once settled (every request answered, every push delivered, the client's timers run), the badge
 * must equal the server's counts and the held list what the model shows.
 */
import { expect } from 'vitest';
import { syncSettingsOf, type InboxClientOptions } from '../../../src/client/inbox-client-options.js';
import { InboxSync } from '../../../src/client/inbox-sync.js';
import type { ListPageRequest } from '../../../src/client/rest.js';
import { applyServerMessage } from '../../../src/client/server-messages.js';
import type { Clock, Counts, InboxPage, ServerMessage, TimerHandle } from '../../../src/client/types.js';
import { decodeCursor } from '../../../src/core/read/cursor.js';
import type { InboxSystem } from './system.js';
import { CURSOR_SECRET } from './system.js';

export const CLIENT_CONNECTION = 'conn-a';
/** The client's planned reconnect (API Gateway's 2-hour limit): a catch-up and counts at least this often. */
const PLANNED_RECONNECT_MS = 110 * 60_000;

type Pending = { kind: 'page'; request: ListPageRequest; resolve(page: InboxPage): void } | { kind: 'counts'; resolve(counts: Counts): void };

/** A computed answer the client has not received yet; the pushes posted before it was computed reach the client first. */
type Ready = { deliver(): void; what: string; afterPushes: number };

export type ClientOp = 'serve' | 'answer' | 'push' | 'sync' | 'timers' | 'loadMore';

class ManualTimers implements Clock {
  private next = 0;
  private readonly timers = new Map<number, () => void>();
  constructor(private readonly now_: () => number) {}
  now(): number {
    return this.now_();
  }
  setTimeout(callback: () => void, _ms: number): TimerHandle {
    this.next += 1;
    this.timers.set(this.next, callback);
    return this.next;
  }
  clearTimeout(handle: TimerHandle): void {
    this.timers.delete(handle as number);
  }
  get pending(): number {
    return this.timers.size;
  }
  /** Runs the timers set so far (the ones they set wait for the next call). */
  fire(): void {
    const due = [...this.timers.entries()];
    for (const [handle] of due) this.timers.delete(handle);
    for (const [, callback] of due) callback();
  }
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

export class ClientUnderTest {
  readonly sync: InboxSync;
  private readonly timers: ManualTimers;
  private readonly requests: Pending[] = [];
  private readonly ready: Ready[] = [];
  private readonly pushes: ServerMessage[] = [];
  private postsSeen = 0;
  /** Pushes to the client's connection collected, and delivered (in that order). */
  private pushesCollected = 0;
  private pushesDelivered = 0;
  private lastSyncMs: number;
  /** What happened, for the failure message of a shrunk sequence. */
  readonly trace: string[] = [];

  constructor(
    private readonly sys: InboxSystem,
    private readonly nowMs: () => number,
  ) {
    this.timers = new ManualTimers(nowMs);
    this.lastSyncMs = nowMs();
    const options: InboxClientOptions = { httpUrl: 'http://model', wsUrl: 'ws://model', token: 't', live: false, clock: this.timers, random: () => 0.5, watchBrowserLifecycle: false, pageSize: 3, catchUpPageSize: 4, maxCatchUpPages: 10 };
    this.sync = new InboxSync(options, syncSettingsOf(options), {
      listPage: (request = {}) => new Promise<InboxPage>((resolve) => this.requests.push({ kind: 'page', request, resolve })),
      counts: () => new Promise<Counts>((resolve) => this.requests.push({ kind: 'counts', resolve })),
    });
    this.sync.events.on('error', (error) => this.trace.push(`error: ${error.message}`));
  }

  /** The first load (and, as on the socket's open, the catch-up after it). */
  start(): void {
    void this.sync.start();
  }

  /** New pushes to the client's connection join the undelivered ones. */
  private collect(): void {
    const posts = this.sys.pusher.posts;
    for (; this.postsSeen < posts.length; this.postsSeen += 1) {
      const post = posts[this.postsSeen]!;
      if (post.connectionId !== CLIENT_CONNECTION) continue;
      this.pushes.push(JSON.parse(JSON.stringify(post.message)) as ServerMessage);
      this.pushesCollected += 1;
    }
  }

  /** The server computes the answer to one waiting request now. */
  private async serve(pick: number): Promise<boolean> {
    this.collect();
    if (this.requests.length === 0) return false;
    const afterPushes = this.pushesCollected;
    const [request] = this.requests.splice(pick % this.requests.length, 1);
    if (request!.kind === 'counts') {
      const counts = JSON.parse(JSON.stringify(await this.sys.reads.counts(this.sys.user))) as Counts;
      this.ready.push({ what: `counts ${JSON.stringify(counts)}`, deliver: () => request!.resolve(counts), afterPushes });
      return true;
    }
    const { limit, cursor, since, type } = request!.request;
    const page = JSON.parse(
      JSON.stringify(
        await this.sys.reads.listPage(this.sys.user, {
          limit: limit ?? 20,
          ...(cursor ? { cursor: decodeCursor(cursor, CURSOR_SECRET) } : {}),
          ...(since ? { since } : {}),
          ...(type ? { filter: { types: type.split(',') } } : {}),
        }),
      ),
    ) as InboxPage;
    this.ready.push({ what: `page ${since ? `since ${since} ` : ''}[${page.items.map((item) => item.id).join(',')}]`, deliver: () => request!.resolve(page), afterPushes });
    return true;
  }

  /** The client receives one computed answer. */
  private async answer(pick: number): Promise<boolean> {
    if (this.ready.length === 0) return false;
    const [ready] = this.ready.splice(pick % this.ready.length, 1);
    while (this.pushesDelivered < ready!.afterPushes) await this.push();
    this.trace.push(`answer ${ready!.what}`);
    ready!.deliver();
    await tick();
    return true;
  }

  /** The oldest undelivered push reaches the client. */
  private async push(): Promise<boolean> {
    this.collect();
    const message = this.pushes.shift();
    if (message === undefined) return false;
    this.pushesDelivered += 1;
    this.trace.push(`push ${JSON.stringify(message)}`);
    applyServerMessage(this.sync, message);
    await tick();
    return true;
  }

  async step(op: ClientOp, pick: number): Promise<void> {
    this.collect();
    if (op === 'serve') await this.serve(pick);
    else if (op === 'answer') await this.answer(pick);
    else if (op === 'push') await this.push();
    else if (op === 'sync') this.requestSync();
    else if (op === 'loadMore') void this.sync.loadMore();
    else this.timers.fire();
    await tick();
  }

  private requestSync(): void {
    this.trace.push('sync');
    this.lastSyncMs = this.nowMs();
    void this.sync.requestSync();
  }

  /** Everything in flight finishes, oldest first: requests served and answered, pushes delivered, timers run. */
  async settle(): Promise<void> {
    // A socket lives at most 110 minutes: past that the client has reconnected and caught up.
    if (this.nowMs() - this.lastSyncMs >= PLANNED_RECONNECT_MS) this.requestSync();
    for (let guard = 0; guard < 500; guard += 1) {
      await tick();
      this.collect();
      if (await this.answer(0)) continue;
      if (await this.serve(0)) continue;
      if (await this.push()) continue;
      if (this.timers.pending > 0) {
        this.timers.fire();
        continue;
      }
      return;
    }
    throw new Error('the client did not settle in 500 steps');
  }
}

/** What a list item shows, as compared. */
export const shown = (item: { id: string; read: boolean; seen: boolean }) => `${item.id}:${item.read ? 'R' : 'r'}${item.seen ? 'S' : 's'}`;

export interface ClientExpectation {
  /** The model's list (not archived), newest first. */
  list: { id: string; read: boolean; seen: boolean }[];
  counts: { unread: number; unseen: number; capped: boolean } | undefined;
  /** Ids left out of the comparison: expired (a client keeps what it loaded) or unknown (an unfinished post). */
  ignored: (id: string) => boolean;
}

/** The settled client against the model: the badge, and the held list (nothing missing above its oldest item, nothing extra, same flags). */
export function compareClient(client: ClientUnderTest, wanted: ClientExpectation): void {
  const state = client.sync.getState();
  const context = client.trace.slice(-40).join('\n');
  if (wanted.counts) expect(state.counts, `client badge\n${context}`).toEqual(wanted.counts);
  const held = state.notifications.filter((item) => !wanted.ignored(item.id));
  // With no older page left, the whole list; else what lies above the oldest item held.
  const oldest = state.hasMore ? held.at(-1)?.id : '';
  const expectedList = oldest === undefined ? [] : wanted.list.filter((item) => item.id >= oldest && !wanted.ignored(item.id));
  expect(held.map(shown), `client list\n${context}`).toEqual(expectedList.map(shown));
}
