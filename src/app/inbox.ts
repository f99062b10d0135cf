/**
 * The inbox config and the inbox read service of the inbox read and write functions, one per
 * container (the write function checks ids against the user's view and syncs counts with it).
 */
import type * as z from 'zod';
import { DEFAULT_FEED_SHARDS } from '../core/model/feed-shards.js';
import { INBOX_TTL_DAYS_DEFAULT } from '../core/model/notification.js';
import type { MutedTypesReader, RetractionsReader } from '../core/ports/inbox.js';
import { PREFERENCES_CACHE_TTL_MS_DEFAULT } from '../core/preferences/preferences-cache.js';
import { InboxReadService } from '../core/read/inbox-read-service.js';
import { CachedRetractions } from '../core/read/retractions-cache.js';
import { integer, optionalInteger, required } from './config-parsing.js';
import { actionLookup, catalogLinksOf, celebrityPostsLog, graphRepository, inboxRepository, preferencesCache, readStateRepository, retractionRepository, type Parts } from './parts.js';
import type { PreferencesCacheConfig, RestConfig } from './shared-config.js';

export interface InboxConfig extends PreferencesCacheConfig {
  inboxTable: string;
  readMarksTable: string;
  cursorSecret: string;
  feedShards: number;
  inboxTtlDays: number;
  /** How long a container reuses a tenant's retraction list (undefined: the default). */
  retractionsCacheTtlMs?: number;
}

/** The config of the inbox read function; the write function's extends it. */
export interface InboxReadConfig extends InboxConfig, RestConfig {}

export const inboxShape = {
  INBOX_TABLE: required,
  READ_MARKS_TABLE: required,
  GRAPH_TABLE: required,
  CURSOR_SECRET: required,
  FEED_SHARDS: integer(DEFAULT_FEED_SHARDS, 1),
  INBOX_TTL_DAYS: integer(INBOX_TTL_DAYS_DEFAULT, 1),
  PREFERENCES_CACHE_TTL_MS: integer(PREFERENCES_CACHE_TTL_MS_DEFAULT, 0),
  RETRACTIONS_CACHE_TTL_MS: optionalInteger(0),
};
export const inboxOf = (env: z.output<z.ZodObject<typeof inboxShape>>): InboxConfig => ({
  inboxTable: env.INBOX_TABLE,
  readMarksTable: env.READ_MARKS_TABLE,
  graphTable: env.GRAPH_TABLE,
  cursorSecret: env.CURSOR_SECRET,
  feedShards: env.FEED_SHARDS,
  inboxTtlDays: env.INBOX_TTL_DAYS,
  cacheTtlMs: env.PREFERENCES_CACHE_TTL_MS,
  ...(env.RETRACTIONS_CACHE_TTL_MS !== undefined ? { retractionsCacheTtlMs: env.RETRACTIONS_CACHE_TTL_MS } : {}),
});

/** A container reuses a tenant's retraction list this long (pages and counts of a warm container pay no extra request). */
export const RETRACTIONS_CACHE_TTL_MS_DEFAULT = 5_000;

export function retractionsReader(parts: Parts, inboxTable: string, ttlMs: number): RetractionsReader {
  return parts.shared(retractionsReader, [inboxTable, ttlMs], () => new CachedRetractions(retractionRepository(parts, inboxTable), ttlMs, parts.clock));
}

/**
 * The read service of the read or the write function (`reads`): each has its own, as on AWS where
 * they run in separate containers (its memory of celebrity posts log readers is its own).
 */
export function inboxReadService(parts: Parts, config: InboxConfig, reads: 'read' | 'write'): InboxReadService {
  const identity = [reads, config.inboxTable, config.readMarksTable, config.graphTable, config.cacheTtlMs, config.cursorSecret, config.feedShards, config.inboxTtlDays, config.retractionsCacheTtlMs];
  return parts.shared(inboxReadService, identity, () =>
    new InboxReadService({
      inbox: inboxRepository(parts, config.inboxTable),
      celebrities: graphRepository(parts, config.graphTable),
      feedHeads: graphRepository(parts, config.graphTable),
      celebrityPosts: celebrityPostsLog(parts, config.inboxTable),
      readState: readStateRepository(parts, config.readMarksTable),
      actionLookup: actionLookup(parts, { inbox: config.inboxTable, readMarks: config.readMarksTable, graph: config.graphTable }),
      clock: parts.clock,
      cursorSecret: config.cursorSecret,
      feedShards: config.feedShards,
      inboxTtlDays: config.inboxTtlDays,
      mutedTypes: mutedTypesReader(parts, config),
      retractions: retractionsReader(parts, config.inboxTable, config.retractionsCacheTtlMs ?? RETRACTIONS_CACHE_TTL_MS_DEFAULT),
      linksOf: catalogLinksOf,
    }),
  );
}

/** Muted types for the inbox read: unreadable preferences mute nothing (show everything rather than hide). */
function mutedTypesReader(parts: Parts, config: PreferencesCacheConfig): MutedTypesReader {
  const reader = preferencesCache(parts, config);
  return {
    async mutedTypesOf(user) {
      const lookup = await reader.getOne(user.tenantId, user.userId);
      return lookup.status === 'unreadable' ? [] : lookup.preferences.mutedTypes;
    },
  };
}
