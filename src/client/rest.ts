/** The REST half of the contract (CONTRACT.md, REST), over an injectable `fetch`. */
import type { ArchiveReadAnswer, BulkAnswer, Counts, FetchLike, InboxPage, ItemAction, ReadAllAnswer, SeenAllAnswer, SnoozeAnswer, TokenSource } from './types.js';

/** A non-2xx answer: `status` and the contract's `{"error": {"code", "message"}}` when present. */
export class InboxApiError extends Error {
  override readonly name = 'InboxApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The token provider threw: there was no token to send (signed out, the refresh failed). */
export class InboxTokenError extends Error {
  override readonly name = 'InboxTokenError';
  constructor(override readonly cause: unknown) {
    super(`no token: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
}

export interface InboxRestOptions {
  /** REST base URL, e.g. `http://127.0.0.1:3000` or an API Gateway stage URL. */
  baseUrl: string;
  token: TokenSource;
  fetch?: FetchLike;
}

export interface ListPageRequest {
  limit?: number;
  cursor?: string;
  /** Catch-up: only notifications newer than this id. */
  since?: string;
  /** One type, or several comma-separated. */
  type?: string;
  /** Filters (docs/api/rest.md, "Reading the inbox"); a cursor keeps the filter it was issued with. */
  read?: boolean;
  archived?: boolean;
  category?: string;
  tags?: string[];
}

/** The per-item and bulk actions (docs/api/rest.md "Inbox actions", docs/api/inbox-state.md). */
export interface InboxActionsRest {
  changeOne(id: string, action: Exclude<ItemAction, 'read'>): Promise<void>;
  archiveAllRead(): Promise<ArchiveReadAnswer>;
  snooze(id: string, until: string): Promise<SnoozeAnswer>;
  bulk(action: ItemAction, ids: readonly string[]): Promise<BulkAnswer>;
  /** Counts of one tab (a category). */
  countsOf(category: string): Promise<Counts>;
}

/** `GET /preferences` (docs/api/preferences.md). */
export interface NotificationPreferences {
  timeZone: string;
  quietHours: { start: string; end: string } | null;
  mutedTypes: string[];
  /** Per notification type; a type not listed is delivered live. */
  liveDelivery: Record<string, boolean>;
  /** ISO time of the last PUT; null when never saved. */
  updatedAt: string | null;
}

/** `PUT /preferences`: a full replacement (`updatedAt` is set by the server). */
export type PreferencesInput = Omit<NotificationPreferences, 'updatedAt'>;

export interface PreferencesRest {
  getPreferences(): Promise<NotificationPreferences>;
  putPreferences(input: PreferencesInput): Promise<NotificationPreferences>;
}

export interface InboxRest {
  listPage(request?: ListPageRequest): Promise<InboxPage>;
  counts(): Promise<Counts>;
  /** `upTo`: the newest id rendered; what arrived after it stays unread. */
  markAllRead(upTo?: string): Promise<ReadAllAnswer>;
  markAllSeen(upTo?: string): Promise<SeenAllAnswer>;
  markRead(id: string): Promise<void>;
}

/** Resolves a token source; `forceRefresh` asks a provider for a new token. */
export async function resolveToken(token: TokenSource, forceRefresh = false): Promise<string> {
  return typeof token === 'string' ? token : token({ forceRefresh });
}

function defaultFetch(): FetchLike {
  if (typeof globalThis.fetch !== 'function') throw new Error('no global fetch: pass options.fetch');
  return globalThis.fetch.bind(globalThis) as unknown as FetchLike;
}

export function createInboxRest(options: InboxRestOptions): InboxRest & InboxActionsRest & PreferencesRest & { setToken(token: TokenSource): void } {
  const base = options.baseUrl.replace(/\/+$/, '');
  const fetchFn = options.fetch ?? defaultFetch();
  let token = options.token;

  /** A provider that throws is told apart from a refused token: there was nothing to send. */
  async function tokenFor(forceRefresh: boolean): Promise<string> {
    try {
      return await resolveToken(token, forceRefresh);
    } catch (error) {
      throw new InboxTokenError(error);
    }
  }

  async function call(method: string, path: string, body: unknown = {}): Promise<unknown> {
    // One retry with a fresh token when the server refuses the current one (expired while idle).
    for (let attempt = 0; ; attempt += 1) {
      const jwt = await tokenFor(attempt > 0);
      const response = await fetchFn(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${jwt}`, ...(method !== 'GET' ? { 'content-type': 'application/json' } : {}) },
        ...(method !== 'GET' ? { body: JSON.stringify(body) } : {}),
      });
      if (response.status === 401 && attempt === 0 && typeof token !== 'string') continue;
      if (response.status === 204) return undefined;
      const text = await response.text();
      const answer: unknown = text ? JSON.parse(text) : undefined;
      if (!response.ok) {
        const error = (answer as { error?: { code?: string; message?: string } } | undefined)?.error;
        throw new InboxApiError(response.status, error?.code ?? `http_${response.status}`, error?.message ?? `${method} ${path}: ${response.status}`);
      }
      return answer;
    }
  }

  return {
    setToken(next) {
      token = next;
    },
    async listPage(request = {}) {
      const query = new URLSearchParams();
      if (request.limit !== undefined) query.set('limit', String(request.limit));
      if (request.cursor) query.set('cursor', request.cursor);
      if (request.since) query.set('since', request.since);
      if (request.type) query.set('type', request.type);
      if (request.read !== undefined) query.set('read', String(request.read));
      if (request.archived !== undefined) query.set('archived', String(request.archived));
      if (request.category) query.set('category', request.category);
      if (request.tags && request.tags.length > 0) query.set('tags', request.tags.join(','));
      const queryString = query.toString();
      const suffix = queryString ? `?${queryString}` : '';
      return (await call('GET', `/notifications${suffix}`)) as InboxPage;
    },
    async counts() {
      return (await call('GET', '/notifications/counts')) as Counts;
    },
    async markAllRead(upTo) {
      return (await call('POST', '/notifications/read-all', upTo === undefined ? {} : { upTo })) as ReadAllAnswer;
    },
    async markAllSeen(upTo) {
      return (await call('POST', '/notifications/seen-all', upTo === undefined ? {} : { upTo })) as SeenAllAnswer;
    },
    async markRead(id) {
      await call('POST', `/notifications/${encodeURIComponent(id)}/read`);
    },
    async changeOne(id, action) {
      const path = `/notifications/${encodeURIComponent(id)}`;
      await (action === 'delete' ? call('DELETE', path) : call('POST', `${path}/${action}`));
    },
    async archiveAllRead() {
      return (await call('POST', '/notifications/archive-read')) as ArchiveReadAnswer;
    },
    async snooze(id, until) {
      return (await call('POST', `/notifications/${encodeURIComponent(id)}/snooze`, { until })) as SnoozeAnswer;
    },
    async bulk(action, ids) {
      return (await call('POST', '/notifications/bulk', { action, ids })) as BulkAnswer;
    },
    async countsOf(category) {
      return (await call('GET', `/notifications/counts?category=${encodeURIComponent(category)}`)) as Counts;
    },
    async getPreferences() {
      return (await call('GET', '/preferences')) as NotificationPreferences;
    },
    async putPreferences(input) {
      return (await call('PUT', '/preferences', input)) as NotificationPreferences;
    },
  };
}
