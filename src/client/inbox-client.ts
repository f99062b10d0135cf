/**
 * The inbox client a product's front end embeds: history pages, live pushes, catch-up after every
 * (re)connect, the unread/unseen badge, and the read/seen actions, as one observable state.
 *
 * How it keeps its promises:
 * - no duplicates: every path (push, digest, catch-up, history page) goes through one store keyed by id;
 * - no losses: after every (re)connect it asks `GET /notifications?since=` for what it may have missed,
 *   and it fetches what a push only names (a `notification_ref`, the ids of a digest beyond its bodies);
 * - no drifting badge: counts come from the server (REST or `read_state`) and are only adjusted
 *   locally for live arrivals in between; a count answer that raced an arrival is asked again.
 */
import { backoffDelay } from './backoff.js';
import { InboxStore, DEFAULT_COUNT_CAP } from './inbox-store.js';
import { LiveConnection, type ConnectionStatus, type LiveConnectionTimings } from './live-connection.js';
import { createInboxRest, type InboxActionsRest, type InboxRest, type ListPageRequest, type NotificationPreferences, type PreferencesInput, type PreferencesRest } from './rest.js';
import type { Clock, Counts, FetchLike, InboxPage, ItemAction, Notification, ServerMessage, TimerHandle, TokenSource, WebSocketLike } from './types.js';
import { systemClock } from './types.js';
import { idJustBelow, lowestIdAt, timeOfId } from './ulid-time.js';

/** Tries to fetch a notification a push only named; a miss may be a read that lagged the write. */
const MISSING_FETCH_ATTEMPTS = 3;

export interface InboxClientOptions extends LiveConnectionTimings {
  /** REST base URL (`http` of `.local/endpoints.json`, or the API Gateway stage URL). */
  httpUrl: string;
  /** WebSocket URL (`ws` of `.local/endpoints.json`, or the API Gateway WebSocket stage URL). */
  wsUrl: string;
  /** A JWT, or a function returning one (called before each connect and request; cache in it). */
  token: TokenSource;
  /** Default: the global `fetch`. */
  fetch?: FetchLike;
  /** A WebSocket constructor. Default: the global `WebSocket` (browsers, Node 22+); in Node 20 pass `ws`. */
  WebSocket?: new (url: string) => unknown;
  clock?: Clock;
  random?: () => number;
  /** History page size for the first page and `loadMore()`. Default 20. */
  pageSize?: number;
  /** Page size of the catch-up after a reconnect. Default 100 (the contract's maximum). */
  catchUpPageSize?: number;
  /** A catch-up longer than this many pages is abandoned for a fresh first page. Default 10. */
  maxCatchUpPages?: number;
  /**
   * The catch-up starts this long before the newest notification seen, because pushes can arrive
   * out of id order (urgent ones at once, info ones after the batching window). Repeats are dropped
   * by id, so asking a little more costs one page at most. 0 = exactly `since=<newest id seen>`.
   * Default 60 s.
   */
  catchUpOverlapMs?: number;
  /** The server's count cap. Default 99. */
  countCap?: number;
  /** A server count that arrives this soon after a live arrival may predate it: ask again. Default 1.5 s. */
  countsSettleMs?: number;
  /** Connect the WebSocket. Default true; false = REST only. */
  live?: boolean;
  /** Browser only: probe the socket when the tab becomes visible or the network comes back. Default true. */
  watchBrowserLifecycle?: boolean;
}

export interface InboxState {
  /** Newest first, each id once. */
  notifications: readonly Notification[];
  counts: Counts;
  /** Older pages exist (`loadMore()`). */
  hasMore: boolean;
  /** The first page has been loaded. */
  loaded: boolean;
  loadingMore: boolean;
  /** A catch-up (or the first load) is running. */
  syncing: boolean;
  connection: ConnectionStatus;
}

export interface DigestEvent {
  count: number;
  /**
   * The digest's notifications this client did not hold yet, newest first, including the ones it
   * fetched because they did not fit in the message.
   */
  notifications: Notification[];
}

export interface InboxClientEvents {
  /** Any change of `getState()`. */
  change: InboxState;
  /** A notification pushed live (or fetched after a `notification_ref`) that this client did not hold yet (toast it). */
  notification: Notification;
  /** A digest pushed live with at least one notification this client did not hold yet. */
  digest: DigestEvent;
  /** A first load or catch-up finished. */
  synced: InboxState;
  error: Error;
}

type Listener<T> = (value: T) => void;

function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

export class InboxClient {
  private readonly store: InboxStore;
  private readonly rest: InboxRest & InboxActionsRest & PreferencesRest & { setToken(token: TokenSource): void };
  private readonly connection: LiveConnection | undefined;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly listeners: { [K in keyof InboxClientEvents]: Set<Listener<InboxClientEvents[K]>> } = {
    change: new Set(),
    notification: new Set(),
    digest: new Set(),
    synced: new Set(),
    error: new Set(),
  };
  private readonly settings: Required<
    Pick<InboxClientOptions, 'pageSize' | 'catchUpPageSize' | 'maxCatchUpPages' | 'catchUpOverlapMs' | 'countCap' | 'countsSettleMs'>
  >;
  private started = false;
  private stopped = false;
  private loaded = false;
  private historyCursor: string | null = null;
  private loadingMore: Promise<boolean> | undefined;
  private syncRunning: Promise<void> | undefined;
  private syncAgain = false;
  private syncFailures = 0;
  private syncRetryTimer: TimerHandle | undefined;
  private countsRecheckTimer: TimerHandle | undefined;
  /** Bumped by every local change a count answer may not include (arrival, mark). */
  private changeSequence = 0;
  private lastArrivalAt = Number.NEGATIVE_INFINITY;
  private readFlagsRefresh: Promise<void> | undefined;
  private state: InboxState | undefined;
  private readonly detachLifecycle: Array<() => void> = [];
  /** Waits between attempts to fetch a named notification; cleared by `stop()`. */
  private readonly fetchRetryTimers = new Set<TimerHandle>();

  constructor(private readonly options: InboxClientOptions) {
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? Math.random;
    this.settings = {
      pageSize: options.pageSize ?? 20,
      catchUpPageSize: options.catchUpPageSize ?? 100,
      maxCatchUpPages: options.maxCatchUpPages ?? 10,
      catchUpOverlapMs: options.catchUpOverlapMs ?? 60_000,
      countCap: options.countCap ?? DEFAULT_COUNT_CAP,
      countsSettleMs: options.countsSettleMs ?? 1_500,
    };
    this.store = new InboxStore(this.settings.countCap);
    this.rest = createInboxRest({ baseUrl: options.httpUrl, token: options.token, fetch: options.fetch });
    if (options.live !== false) {
      const WebSocketCtor = options.WebSocket ?? (globalThis as { WebSocket?: new (url: string) => unknown }).WebSocket;
      if (!WebSocketCtor) throw new Error('no global WebSocket: pass options.WebSocket (e.g. the `ws` package in Node 20)');
      this.connection = new LiveConnection({
        ...options,
        url: options.wsUrl,
        token: options.token,
        createSocket: (url) => new WebSocketCtor(url) as WebSocketLike,
        clock: this.clock,
        random: this.random,
        onOpen: () => this.requestSync(),
        onMessage: (message) => this.handleMessage(message),
        onStatus: () => this.changed(),
        onError: (error) => this.emit('error', error),
      });
    }
  }

  /** Loads the first page and the counts and connects; resolves when the first load finished. */
  async start(): Promise<void> {
    if (this.started) return this.syncRunning;
    this.started = true;
    this.watchLifecycle();
    const firstSync = this.requestSync();
    this.connection?.start();
    await firstSync;
  }

  /** Closes the socket and cancels timers. The state stays readable. */
  stop(): void {
    this.stopped = true;
    this.connection?.stop();
    this.clock.clearTimeout(this.syncRetryTimer);
    this.clock.clearTimeout(this.countsRecheckTimer);
    for (const timer of this.fetchRetryTimers) this.clock.clearTimeout(timer);
    this.fetchRetryTimers.clear();
    for (const detach of this.detachLifecycle.splice(0)) detach();
  }

  getState(): InboxState {
    this.state ??= {
      notifications: this.store.list(),
      counts: this.store.counts,
      hasMore: !this.loaded || this.historyCursor !== null,
      loaded: this.loaded,
      loadingMore: this.loadingMore !== undefined,
      syncing: this.syncRunning !== undefined,
      connection: this.connection?.status ?? 'idle',
    };
    return this.state;
  }

  /** Calls `listener` with the state now and after every change; returns the unsubscribe function. */
  subscribe(listener: (state: InboxState) => void): () => void {
    const off = this.on('change', listener);
    listener(this.getState());
    return off;
  }

  on<K extends keyof InboxClientEvents>(event: K, listener: Listener<InboxClientEvents[K]>): () => void {
    this.listeners[event].add(listener);
    return () => this.listeners[event].delete(listener);
  }

  /** Loads the next older page. Resolves to whether more pages remain. */
  loadMore(): Promise<boolean> {
    if (this.loadingMore) return this.loadingMore;
    // Before the first page there is nothing to continue from; the first load is on its way.
    if (!this.loaded || this.historyCursor === null) return Promise.resolve(!this.loaded || this.historyCursor !== null);
    const cursor = this.historyCursor;
    this.loadingMore = (async () => {
      try {
        const page = await this.rest.listPage({ limit: this.settings.pageSize, cursor });
        this.store.merge(page.items);
        // A catch-up that reset the list while this page was loading owns the cursor now.
        if (this.historyCursor === cursor) this.historyCursor = page.nextCursor;
        return this.historyCursor !== null;
      } finally {
        this.loadingMore = undefined;
        this.changed();
      }
    })();
    this.changed();
    return this.loadingMore;
  }

  /** Marks read everything up to the newest notification held (one O(1) write); later arrivals stay unread. */
  async markAllRead(): Promise<void> {
    const { readAt } = await this.rest.markAllRead(this.store.newestId());
    this.changeSequence += 1;
    this.store.applyReadMark(readAt);
    this.store.setCounts(this.store.countsFromHeld());
    this.changed();
  }

  /** Clears the badge (unseen) without marking anything read: call it when the bell opens. */
  async markAllSeen(): Promise<void> {
    const { seenAt } = await this.rest.markAllSeen(this.store.newestId());
    this.changeSequence += 1;
    this.store.applySeenMark(seenAt);
    const counts = this.store.counts;
    this.store.setCounts({ ...counts, unseen: Math.min(this.store.countsFromHeld().unseen, counts.unread) });
    this.changed();
  }

  /** The user's delivery preferences (`GET /preferences`). */
  getPreferences(): Promise<NotificationPreferences> {
    return this.rest.getPreferences();
  }

  /** Replaces the user's delivery preferences (`PUT /preferences`); answers the stored document. */
  savePreferences(input: PreferencesInput): Promise<NotificationPreferences> {
    return this.rest.putPreferences(input);
  }

  /** Marks one notification read. */
  async markRead(id: string): Promise<void> {
    await this.rest.markRead(id);
    this.changeSequence += 1;
    const before = this.store.applySingleRead(id);
    const counts = this.store.counts;
    if (counts.capped || !before) {
      void this.refreshCounts();
    } else {
      this.store.setCounts({
        unread: Math.max(0, counts.unread - (before.read ? 0 : 1)),
        unseen: Math.max(0, counts.unseen - (before.seen ? 0 : 1)),
        capped: false,
      });
    }
    this.changed();
  }

  /** Archives one notification: it leaves this list (`listPage({ archived: true })` shows the archive). */
  async archive(id: string): Promise<void> {
    await this.changeOne(id, 'archive');
  }

  /** Unarchives one notification: it comes back into this list. */
  async unarchive(id: string): Promise<void> {
    await this.changeOne(id, 'unarchive');
  }

  /** Marks one notification unread again (also one read by a read-all). */
  async markUnread(id: string): Promise<void> {
    await this.changeOne(id, 'unread');
  }

  /** Marks one notification seen (still unread). */
  async markSeen(id: string): Promise<void> {
    await this.changeOne(id, 'seen');
  }

  /** Deletes one notification for this user (gone everywhere, counts included). */
  async delete(id: string): Promise<void> {
    await this.changeOne(id, 'delete');
  }

  /** Hides one notification until `until`; it then comes back on top as a new unread arrival (pushed live). */
  async snooze(id: string, until: Date | string): Promise<{ until: string }> {
    const answer = await this.rest.snooze(id, typeof until === 'string' ? until : until.toISOString());
    this.applyItemAction('snooze', [id]);
    void this.refreshCounts();
    return answer;
  }

  /** Archives everything read (one write on the server): read notifications leave this list. */
  async archiveAllRead(): Promise<{ archivedAt: string }> {
    const answer = await this.rest.archiveAllRead();
    this.changeSequence += 1;
    this.store.removeRead();
    this.changed();
    return answer;
  }

  /** One action on up to 100 ids; answers which were changed and which are not in this user's view. */
  async bulk(action: ItemAction, ids: readonly string[]): Promise<{ updated: string[]; notFound: string[] }> {
    const answer = await this.rest.bulk(action, ids);
    this.applyItemAction(action, answer.updated);
    void this.refreshCounts();
    return answer;
  }

  /** A page with filters (`archived`, `read`, `type`, `category`, `tags`), not merged into this list (tabs, the archive). */
  listPage(request: ListPageRequest): Promise<InboxPage> {
    return this.rest.listPage(request);
  }

  /** The counts of one tab (a category of the catalog), capped like the badge. */
  countsOf(category: string): Promise<Counts> {
    return this.rest.countsOf(category);
  }

  private async changeOne(id: string, action: Exclude<ItemAction, 'read'>): Promise<void> {
    await this.rest.changeOne(id, action);
    this.applyItemAction(action, [id]);
    void this.refreshCounts();
  }

  /** Applies an action (this device's, or another's from `item_state`) to the held list. */
  private applyItemAction(action: ItemAction | 'snooze', ids: readonly string[]): void {
    this.changeSequence += 1;
    if (action === 'archive' || action === 'delete' || action === 'snooze') this.store.remove(ids);
    else if (action === 'unread') this.store.applyUnread(ids);
    else if (action === 'seen') this.store.applySeen(ids);
    else if (action === 'read') this.store.applyRead(ids);
    // Unarchived: back in this list, fetched by id.
    else if (action === 'unarchive') void this.fetchNamed(ids.filter((id) => !this.store.has(id)));
    this.changed();
  }

  /** Asks the server for the counts; asks again when a local change raced the answer. */
  async refreshCounts(): Promise<Counts> {
    for (let attempt = 0; ; attempt += 1) {
      const sequence = this.changeSequence;
      const counts = await this.rest.counts();
      if (sequence !== this.changeSequence && attempt < 2) continue;
      this.store.setCounts(counts);
      this.changed();
      return counts;
    }
  }

  /** Replaces the token (or provider): later requests use it and the socket reconnects with it. */
  setToken(token: TokenSource): void {
    this.rest.setToken(token);
    this.connection?.setToken(token);
  }

  /** Reconnects the socket now (a catch-up follows). */
  reconnect(): void {
    this.connection?.reconnectNow();
  }

  /** Runs a first load or catch-up now, or once more after the one running. */
  requestSync(): Promise<void> {
    if (this.syncRunning) {
      this.syncAgain = true;
      return this.syncRunning;
    }
    this.clock.clearTimeout(this.syncRetryTimer);
    this.syncRunning = (async () => {
      let failed = false;
      do {
        this.syncAgain = false;
        try {
          await this.syncOnce();
          this.syncFailures = 0;
        } catch (error) {
          failed = true;
          this.emit('error', toError(error));
        }
      } while (this.syncAgain && !failed && !this.stopped);
      this.syncRunning = undefined;
      this.changed();
      if (failed) this.scheduleSyncRetry();
      else this.emit('synced', this.getState());
    })();
    this.changed();
    return this.syncRunning;
  }

  private async syncOnce(): Promise<void> {
    const newest = this.store.newestId();
    if (!this.loaded || newest === undefined) await this.loadFirstPage();
    else await this.catchUp(newest);
    await this.refreshCounts();
  }

  private async loadFirstPage(): Promise<void> {
    const page = await this.rest.listPage({ limit: this.settings.pageSize });
    this.store.merge(page.items);
    this.historyCursor = page.nextCursor;
    this.loaded = true;
    this.changed();
  }

  /** Everything newer than (about) the newest id seen, page by page; a very long gap starts over. */
  private async catchUp(newest: string): Promise<void> {
    const overlapFloor = lowestIdAt(timeOfId(newest) - this.settings.catchUpOverlapMs);
    const since = this.settings.catchUpOverlapMs > 0 && overlapFloor < newest ? overlapFloor : newest;
    let cursor: string | undefined;
    for (let pages = 1; ; pages += 1) {
      const page = await this.rest.listPage({ limit: this.settings.catchUpPageSize, since, cursor });
      this.store.merge(page.items);
      this.changed();
      if (page.nextCursor === null) return;
      if (pages >= this.settings.maxCatchUpPages) {
        // Too far behind to stitch: drop the list and start from the newest page.
        this.store.clear();
        this.historyCursor = null;
        this.loaded = false;
        await this.loadFirstPage();
        return;
      }
      cursor = page.nextCursor;
    }
  }

  private scheduleSyncRetry(): void {
    if (this.stopped) return;
    const delay = backoffDelay(this.syncFailures, this.random, this.options.backoff);
    this.syncFailures += 1;
    this.syncRetryTimer = this.clock.setTimeout(() => void this.requestSync(), delay);
  }

  private handleMessage(message: ServerMessage): void {
    switch (message.type) {
      case 'notification': {
        const added = this.arrive([message.notification]);
        for (const notification of added) this.emit('notification', notification);
        break;
      }
      case 'notification_ref': {
        this.lastArrivalAt = this.clock.now();
        void this.fetchNamed([message.id], message.notificationType).then((added) => {
          for (const notification of added) this.emit('notification', notification);
        });
        break;
      }
      case 'digest': {
        const bodies = message.notifications ?? [];
        const added = this.arrive(bodies);
        const withBody = new Set(bodies.map((notification) => notification.id));
        const missing = (message.ids ?? []).filter((id) => !withBody.has(id) && !this.store.has(id));
        if (missing.length === 0) {
          if (added.length > 0) this.emit('digest', { count: message.count, notifications: added });
          break;
        }
        // One digest event once the rest is fetched, so a product toasts the digest once.
        void this.fetchNamed(missing).then((fetched) => {
          const all = [...added, ...fetched].sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
          if (all.length > 0) this.emit('digest', { count: message.count, notifications: all });
        });
        break;
      }
      case 'error':
        this.emit('error', new Error(`server refused a message: ${message.code}: ${message.message}`));
        break;
      case 'item_state': {
        this.applyItemAction(message.action, message.ids);
        this.store.setCounts({ unread: message.unread, unseen: message.unseen, capped: message.capped });
        this.changed();
        break;
      }
      case 'archived_read': {
        this.changeSequence += 1;
        this.store.removeRead();
        this.store.setCounts({ unread: message.unread, unseen: message.unseen, capped: message.capped });
        this.changed();
        break;
      }
      case 'retracted': {
        this.changeSequence += 1;
        const removed = this.store.remove(message.ids);
        if (removed.length > 0) void this.refreshCounts();
        this.changed();
        break;
      }
      case 'read_state': {
        this.changeSequence += 1;
        this.store.applyReadMark(message.readAt);
        this.store.applySeenMark(message.seenAt);
        const atCap = message.unread >= this.settings.countCap;
        this.store.setCounts({ unread: message.unread, unseen: message.unseen, capped: message.capped ?? (atCap && this.store.counts.capped) });
        // Unknown whether there are more than the cap, or the count may predate a just-counted arrival.
        const racedArrival = this.clock.now() - this.lastArrivalAt < this.settings.countsSettleMs;
        if ((message.capped === undefined && atCap) || racedArrival) this.recheckCountsSoon();
        // More unread here than the server counts: another device read single notifications, and
        // read_state does not say which. Re-read the flags of the held unread ones.
        if (!atCap && this.store.countsFromHeld().unread > message.unread) this.refreshReadFlagsSoon();
        this.changed();
        break;
      }
      default:
        break;
    }
  }

  /**
   * Fetches notifications a push named without carrying them and merges them as live arrivals;
   * returns the ones not held before. `since=<just below the oldest>` starts at exactly that id; the
   * type narrows the pages when all are of one type. An id held meanwhile (a catch-up got it) is
   * not fetched again; one still missing after a few attempts is left to the next catch-up.
   */
  private async fetchNamed(ids: readonly string[], type?: string): Promise<Notification[]> {
    const wanted = new Set(ids);
    const arrived: Notification[] = [];
    for (let attempt = 0; ; attempt += 1) {
      for (const id of wanted) if (this.store.has(id)) wanted.delete(id);
      if (wanted.size === 0 || this.stopped) return arrived;
      try {
        const found = await this.listByIds(wanted, type);
        for (const item of found) wanted.delete(item.id);
        arrived.push(...this.arrive(found));
      } catch (error) {
        this.emit('error', toError(error));
      }
      if (wanted.size === 0 || attempt + 1 >= MISSING_FETCH_ATTEMPTS) return arrived;
      await this.waitBeforeRetry(backoffDelay(attempt, this.random, this.options.backoff));
    }
  }

  /** The wanted ids found in `GET /notifications?since=` pages, newest first. */
  private async listByIds(wanted: ReadonlySet<string>, type: string | undefined): Promise<Notification[]> {
    const oldest = [...wanted].sort()[0]!;
    const since = idJustBelow(oldest);
    const found: Notification[] = [];
    let cursor: string | undefined;
    for (let pages = 1; ; pages += 1) {
      const page = await this.rest.listPage({ limit: this.settings.catchUpPageSize, since, cursor, type });
      for (const item of page.items) if (wanted.has(item.id)) found.push(item);
      if (found.length >= wanted.size || page.nextCursor === null || pages >= this.settings.maxCatchUpPages) return found;
      cursor = page.nextCursor;
    }
  }

  private waitBeforeRetry(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = this.clock.setTimeout(() => {
        this.fetchRetryTimers.delete(timer);
        resolve();
      }, ms);
      this.fetchRetryTimers.add(timer);
    });
  }

  /** Merges live notifications; the ones not held before are counted and returned. */
  private arrive(notifications: readonly Notification[]): Notification[] {
    const added = this.store.merge(notifications);
    if (added.length === 0) return added;
    this.changeSequence += 1;
    this.lastArrivalAt = this.clock.now();
    this.store.countArrivals(added);
    this.changed();
    return added;
  }

  /** Re-reads the held unread notifications (newest first, from the oldest unread one up) so their flags follow the server. */
  private refreshReadFlagsSoon(): void {
    if (this.readFlagsRefresh) return;
    this.readFlagsRefresh = (async () => {
      try {
        const unread = this.store.list().filter((item) => !item.read);
        const oldest = unread[unread.length - 1];
        if (!oldest) return;
        const since = lowestIdAt(timeOfId(oldest.id) - 1);
        let cursor: string | undefined;
        for (let pages = 0; pages < this.settings.maxCatchUpPages; pages += 1) {
          const page = await this.rest.listPage({ limit: this.settings.catchUpPageSize, since, cursor });
          this.store.merge(page.items);
          if (page.nextCursor === null) break;
          cursor = page.nextCursor;
        }
        this.changed();
      } catch (error) {
        this.emit('error', toError(error));
      } finally {
        this.readFlagsRefresh = undefined;
      }
    })();
  }

  private recheckCountsSoon(): void {
    this.clock.clearTimeout(this.countsRecheckTimer);
    this.countsRecheckTimer = this.clock.setTimeout(() => {
      this.refreshCounts().catch((error: unknown) => this.emit('error', toError(error)));
    }, this.settings.countsSettleMs);
  }

  private watchLifecycle(): void {
    const connection = this.connection;
    if (!connection || this.options.watchBrowserLifecycle === false) return;
    if (typeof window === 'undefined' || typeof document === 'undefined') return;
    const onOnline = () => connection.probe();
    const onVisible = () => {
      if (document.visibilityState === 'visible') connection.probe();
    };
    window.addEventListener('online', onOnline);
    document.addEventListener('visibilitychange', onVisible);
    this.detachLifecycle.push(
      () => window.removeEventListener('online', onOnline),
      () => document.removeEventListener('visibilitychange', onVisible),
    );
  }

  private changed(): void {
    this.state = undefined;
    if (this.listeners.change.size > 0) this.emit('change', this.getState());
  }

  private emit<K extends keyof InboxClientEvents>(event: K, value: InboxClientEvents[K]): void {
    for (const listener of [...this.listeners[event]]) {
      try {
        listener(value);
      } catch (error) {
        if (event !== 'error') this.emit('error', toError(error));
      }
    }
  }
}

/** Creates an inbox client; call `start()` to load and connect. */
export function createInboxClient(options: InboxClientOptions): InboxClient {
  return new InboxClient(options);
}
