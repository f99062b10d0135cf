/**
 * The sync engine of the inbox client: one store keyed by id, filled by the first page, older pages
 * (`loadMore`), the catch-up after every (re)connect (`GET /notifications?since=`), live pushes
 * (`server-messages.ts`) and the fetch of what a push only names; the counts from the server,
 * adjusted locally for arrivals and asked again when an answer may have raced one.
 */
import { backoffDelay } from './backoff.js';
import type { InboxClientOptions, SyncSettings } from './inbox-client-options.js';
import { inboxErrorOf, type InboxError } from './inbox-error.js';
import { InboxEvents, toError, type InboxClientEvents, type InboxState } from './inbox-events.js';
import { InboxStore } from './inbox-store.js';
import { LiveConnection } from './live-connection.js';
import type { InboxRest } from './rest.js';
import { applyServerMessage, type SyncTarget } from './server-messages.js';
import type { Clock, Counts, ItemAction, Notification, TimerHandle, TokenSource, WebSocketLike } from './types.js';
import { systemClock } from './types.js';
import { idJustBelow, lowestIdAt, timeOfId } from './ulid-time.js';

/** Tries to fetch a notification a push only named; a miss may be a read that lagged the write. */
const MISSING_FETCH_ATTEMPTS = 3;

export class InboxSync implements SyncTarget {
  readonly store: InboxStore;
  readonly events = new InboxEvents();
  private readonly connection: LiveConnection | undefined;
  private readonly clock: Clock;
  private readonly random: () => number;
  private started = false;
  private stopped = false;
  private loaded = false;
  private historyCursor: string | null = null;
  private loadingMore: Promise<boolean> | undefined;
  private syncRunning: Promise<void> | undefined;
  private syncAgain = false;
  private syncFailures = 0;
  /** The last sync's failure, until a sync succeeds (the state's `error`). */
  private syncError: InboxError | undefined;
  private syncRetryTimer: TimerHandle | undefined;
  private countsRecheckTimer: TimerHandle | undefined;
  /** Bumped by every local change a count answer may not include (arrival, mark). */
  private changeSequence = 0;
  /** Bumped by this device's marks and actions and other devices' (not by arrivals). */
  private markSequence = 0;
  private lastArrivalAt = Number.NEGATIVE_INFINITY;
  private readFlagsRefresh: Promise<void> | undefined;
  private state: InboxState | undefined;
  private readonly detachLifecycle: Array<() => void> = [];
  /** Waits between attempts to fetch a named notification; cleared by `stop()`. */
  private readonly fetchRetryTimers = new Set<TimerHandle>();

  constructor(
    private readonly options: InboxClientOptions,
    readonly settings: SyncSettings,
    private readonly rest: Pick<InboxRest, 'listPage' | 'counts'>,
  ) {
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? Math.random;
    this.store = new InboxStore(this.settings.countCap);
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
        onMessage: (message) => applyServerMessage(this, message),
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
      error: this.syncError,
    };
    return this.state;
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

  /** A local change a count answer may not include (a mark, an action): applied to the store, then listeners told. */
  applyLocal(change: (store: InboxStore) => void): void {
    this.changeSequence += 1;
    this.markSequence += 1;
    change(this.store);
    this.changed();
  }

  /** Applies an action (this device's, or another's from `item_state`) to the held list. */
  applyItemAction(action: ItemAction | 'snooze', ids: readonly string[]): void {
    this.changeSequence += 1;
    this.markSequence += 1;
    if (action === 'archive' || action === 'delete' || action === 'snooze') this.store.remove(ids);
    else if (action === 'unread') this.store.applyUnread(ids);
    else if (action === 'seen') this.store.applySeen(ids);
    else if (action === 'read') this.store.applyRead(ids);
    // Unarchived: back in this list, fetched by id.
    else if (action === 'unarchive') {
      this.store.restore(ids);
      void this.fetchNamed(ids.filter((id) => !this.store.has(id)));
    }
    this.changed();
  }

  /** Asks the server for the counts; asks again when a local change raced the answer. */
  async refreshCounts(): Promise<Counts> {
    for (let attempt = 0; ; attempt += 1) {
      const sequence = this.changeSequence;
      const marks = this.markSequence;
      const arrivals = this.store.arrivalMark();
      const counts = await this.rest.counts();
      // With `newestId` the answer is exact for the arrivals it may have raced (an older server's is
      // asked again), not for a mark or action that changed the list meanwhile.
      const raced = counts.newestId === undefined ? sequence !== this.changeSequence : marks !== this.markSequence;
      if (raced && attempt < 2) continue;
      this.store.setCounts(counts, arrivals);
      this.changed();
      return counts;
    }
  }

  /** The socket reconnects with the new token (later requests use it through the REST client). */
  setToken(token: TokenSource): void {
    this.connection?.setToken(token);
  }

  /** Reconnects the socket now (a catch-up follows). */
  reconnect(): void {
    this.connection?.reconnectNow();
  }

  /** After a failure: sync now instead of after the backoff, and reconnect a socket that is waiting to. */
  retry(): Promise<void> {
    this.syncFailures = 0;
    this.connection?.probe();
    return this.requestSync();
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
          this.syncError = inboxErrorOf(error);
          this.emit('error', toError(error));
        }
      } while (this.syncAgain && !failed && !this.stopped);
      if (!failed) this.syncError = undefined;
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
    // An answer proves the failure over (token, network): the list shows without the old error.
    this.syncError = undefined;
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
      this.syncError = undefined;
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

  /**
   * Fetches notifications a push named without carrying them and merges them as live arrivals;
   * returns the ones not held before. `since=<just below the oldest>` starts at exactly that id; the
   * type narrows the pages when all are of one type. An id held meanwhile (a catch-up got it) is
   * not fetched again; one still missing after a few attempts is left to the next catch-up.
   */
  async fetchNamed(ids: readonly string[], type?: string): Promise<Notification[]> {
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
  arrive(notifications: readonly Notification[]): Notification[] {
    const added = this.store.merge(notifications);
    if (added.length === 0) return added;
    this.changeSequence += 1;
    this.lastArrivalAt = this.clock.now();
    // Left out as already counted: an id written late under an older stamp may not be after all.
    if (this.store.countArrivals(added).length > 0) this.recheckCountsSoon();
    this.changed();
    return added;
  }

  /** Re-reads the held unread notifications (newest first, from the oldest unread one up) so their flags follow the server. */
  refreshReadFlagsSoon(): void {
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

  recheckCountsSoon(): void {
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

  noteArrival(): void {
    this.lastArrivalAt = this.clock.now();
  }

  racedArrival(): boolean {
    return this.clock.now() - this.lastArrivalAt < this.settings.countsSettleMs;
  }

  changed(): void {
    this.state = undefined;
    if (this.events.has('change')) this.emit('change', this.getState());
  }

  emit<K extends keyof InboxClientEvents>(event: K, value: InboxClientEvents[K]): void {
    this.events.emit(event, value);
  }
}
