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
import { InboxClientActions } from './inbox-client-actions.js';
import { syncSettingsOf, type InboxClientOptions } from './inbox-client-options.js';
import type { InboxClientEvents, InboxState } from './inbox-events.js';
import { InboxSync } from './inbox-sync.js';
import { createInboxRest, type ListPageRequest, type NotificationPreferences, type PreferencesInput } from './rest.js';
import type { Counts, InboxPage, ItemAction, TokenSource } from './types.js';

export type { InboxClientOptions } from './inbox-client-options.js';
export type { DigestEvent, InboxClientEvents, InboxState } from './inbox-events.js';

/** The whole client: the sync engine (`inbox-sync.ts`) and the actions (`inbox-client-actions.ts`) on one REST client. */
export class InboxClient {
  private readonly rest: ReturnType<typeof createInboxRest>;
  private readonly sync: InboxSync;
  private readonly actions: InboxClientActions;

  constructor(options: InboxClientOptions) {
    this.rest = createInboxRest({ baseUrl: options.httpUrl, token: options.token, fetch: options.fetch });
    this.sync = new InboxSync(options, syncSettingsOf(options), this.rest);
    this.actions = new InboxClientActions(this.rest, this.sync);
  }

  /** Loads the first page and the counts and connects; resolves when the first load finished. */
  start(): Promise<void> {
    return this.sync.start();
  }

  /** Closes the socket and cancels timers. The state stays readable. */
  stop(): void {
    this.sync.stop();
  }

  getState(): InboxState {
    return this.sync.getState();
  }

  /** Calls `listener` with the state now and after every change; returns the unsubscribe function. */
  subscribe(listener: (state: InboxState) => void): () => void {
    const off = this.on('change', listener);
    listener(this.getState());
    return off;
  }

  on<K extends keyof InboxClientEvents>(event: K, listener: (value: InboxClientEvents[K]) => void): () => void {
    return this.sync.events.on(event, listener);
  }

  /** Loads the next older page. Resolves to whether more pages remain. */
  loadMore(): Promise<boolean> {
    return this.sync.loadMore();
  }

  /** Marks read everything up to the newest notification held (one O(1) write); later arrivals stay unread. */
  markAllRead(): Promise<void> {
    return this.actions.markAllRead();
  }

  /** Clears the badge (unseen) without marking anything read: call it when the bell opens. */
  markAllSeen(): Promise<void> {
    return this.actions.markAllSeen();
  }

  /** The user's delivery preferences (`GET /preferences`). */
  getPreferences(): Promise<NotificationPreferences> {
    return this.actions.getPreferences();
  }

  /** Replaces the user's delivery preferences (`PUT /preferences`); answers the stored document. */
  savePreferences(input: PreferencesInput): Promise<NotificationPreferences> {
    return this.actions.savePreferences(input);
  }

  /** Marks one notification read. */
  markRead(id: string): Promise<void> {
    return this.actions.markRead(id);
  }

  /** Archives one notification: it leaves this list (`listPage({ archived: true })` shows the archive). */
  archive(id: string): Promise<void> {
    return this.actions.changeOne(id, 'archive');
  }

  /** Unarchives one notification: it comes back into this list. */
  unarchive(id: string): Promise<void> {
    return this.actions.changeOne(id, 'unarchive');
  }

  /** Marks one notification unread again (also one read by a read-all). */
  markUnread(id: string): Promise<void> {
    return this.actions.changeOne(id, 'unread');
  }

  /** Marks one notification seen (still unread). */
  markSeen(id: string): Promise<void> {
    return this.actions.changeOne(id, 'seen');
  }

  /** Deletes one notification for this user (gone everywhere, counts included). */
  delete(id: string): Promise<void> {
    return this.actions.changeOne(id, 'delete');
  }

  /** Hides one notification until `until`; it then comes back on top as a new unread arrival (pushed live). */
  snooze(id: string, until: Date | string): Promise<{ until: string }> {
    return this.actions.snooze(id, until);
  }

  /** Archives everything read (one write on the server): read notifications leave this list. */
  archiveAllRead(): Promise<{ archivedAt: string }> {
    return this.actions.archiveAllRead();
  }

  /** One action on up to 100 ids; answers which were changed and which are not in this user's view. */
  bulk(action: ItemAction, ids: readonly string[]): Promise<{ updated: string[]; notFound: string[] }> {
    return this.actions.bulk(action, ids);
  }

  /** A page with filters (`archived`, `read`, `type`, `category`, `tags`), not merged into this list (tabs, the archive). */
  listPage(request: ListPageRequest): Promise<InboxPage> {
    return this.actions.listPage(request);
  }

  /** The counts of one tab (a category of the catalog), capped like the badge. */
  countsOf(category: string): Promise<Counts> {
    return this.actions.countsOf(category);
  }

  /** Asks the server for the counts; asks again when a local change raced the answer. */
  refreshCounts(): Promise<Counts> {
    return this.sync.refreshCounts();
  }

  /** Replaces the token (or provider): later requests use it, the socket reconnects with it, and a failed sync is retried at once. */
  setToken(token: TokenSource): void {
    this.rest.setToken(token);
    this.sync.setToken(token);
    if (this.sync.getState().error) void this.sync.retry();
  }

  /** Reconnects the socket now (a catch-up follows). */
  reconnect(): void {
    this.sync.reconnect();
  }

  /** Runs a first load or catch-up now, or once more after the one running. */
  requestSync(): Promise<void> {
    return this.sync.requestSync();
  }

  /**
   * After a failure (`getState().error`): loads or catches up now instead of after the backoff, and
   * reconnects a socket that is waiting to; a refused token is asked for again with `forceRefresh`.
   * Resolves when that sync finished (a failure is in the state again, never a rejection).
   */
  retry(): Promise<void> {
    return this.sync.retry();
  }
}

/** Creates an inbox client; call `start()` to load and connect. */
export function createInboxClient(options: InboxClientOptions): InboxClient {
  return new InboxClient(options);
}
