/**
 * A short-lived cache in front of the preferences store for fan-out and delivery: a change takes
 * effect within the TTL. A failed read is not cached and answers `unreadable` (callers fail closed).
 */
import type { Clock } from '../ports/clock.js';
import type { PreferencesLookup } from './preferences.js';
import type { PreferencesReader } from './store.js';

export const PREFERENCES_CACHE_TTL_MS_DEFAULT = 30_000;
const MAX_ENTRIES_DEFAULT = 10_000;

export interface CachedPreferencesReaderOptions {
  ttlMs?: number;
  maxEntries?: number;
  onError?: (error: unknown, tenantId: string, userCount: number) => void;
}

export class CachedPreferencesReader implements PreferencesReader {
  private readonly entries = new Map<string, { lookup: PreferencesLookup; expiresAtMs: number }>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;

  constructor(
    private readonly store: PreferencesReader,
    private readonly clock: Clock,
    private readonly options: CachedPreferencesReaderOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? PREFERENCES_CACHE_TTL_MS_DEFAULT;
    this.maxEntries = options.maxEntries ?? MAX_ENTRIES_DEFAULT;
  }

  async getPreferences(tenantId: string, userIds: readonly string[]): Promise<Map<string, PreferencesLookup>> {
    const now = this.clock.nowMs();
    const result = new Map<string, PreferencesLookup>();
    const missing: string[] = [];
    for (const userId of new Set(userIds)) {
      const entry = this.entries.get(cacheKey(tenantId, userId));
      if (entry && entry.expiresAtMs > now) result.set(userId, entry.lookup);
      else missing.push(userId);
    }
    if (missing.length === 0) return result;
    let fetched: Map<string, PreferencesLookup>;
    try {
      fetched = await this.store.getPreferences(tenantId, missing);
    } catch (error) {
      this.options.onError?.(error, tenantId, missing.length);
      for (const userId of missing) result.set(userId, { status: 'unreadable', reason: 'preferences could not be read' });
      return result;
    }
    for (const userId of missing) {
      const lookup = fetched.get(userId) ?? { status: 'unreadable', reason: 'missing from the store answer' };
      result.set(userId, lookup);
      if (this.ttlMs > 0) this.remember(cacheKey(tenantId, userId), lookup, now + this.ttlMs);
    }
    return result;
  }

  /** One user's lookup (delivery reads one recipient at a time). */
  async getOne(tenantId: string, userId: string): Promise<PreferencesLookup> {
    return (await this.getPreferences(tenantId, [userId])).get(userId)!;
  }

  private remember(key: string, lookup: PreferencesLookup, expiresAtMs: number): void {
    this.entries.delete(key);
    // Oldest insertion first: Map iteration order gives a cheap LRU-by-insertion eviction.
    while (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { lookup, expiresAtMs });
  }
}

function cacheKey(tenantId: string, userId: string): string {
  return `${tenantId}\u0000${userId}`;
}
