/** The options of `createInboxClient`, and the settings they resolve to (the defaults in one place). */
import { DEFAULT_COUNT_CAP } from './inbox-store.js';
import type { LiveConnectionTimings } from './live-connection.js';
import type { Clock, FetchLike, TokenSource } from './types.js';

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

/** The sync engine's page sizes, catch-up window and count settings, defaults applied. */
export type SyncSettings = Required<Pick<InboxClientOptions, 'pageSize' | 'catchUpPageSize' | 'maxCatchUpPages' | 'catchUpOverlapMs' | 'countCap' | 'countsSettleMs'>>;

export function syncSettingsOf(options: InboxClientOptions): SyncSettings {
  return {
    pageSize: options.pageSize ?? 20,
    catchUpPageSize: options.catchUpPageSize ?? 100,
    maxCatchUpPages: options.maxCatchUpPages ?? 10,
    catchUpOverlapMs: options.catchUpOverlapMs ?? 60_000,
    countCap: options.countCap ?? DEFAULT_COUNT_CAP,
    countsSettleMs: options.countsSettleMs ?? 1_500,
  };
}
