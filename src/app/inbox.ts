/**
 * The inbox read service of the inbox read and write functions, one per container (the write
 * function checks ids against the user's view and syncs counts to connected devices with it).
 */
import { DynamoCelebrityPostsLog } from '../adapters/dynamo/celebrity-posts-log.js';
import { InboxRepository } from '../adapters/dynamo/inbox-repository.js';
import { ReadStateRepository } from '../adapters/dynamo/read-state-repository.js';
import { RetractionRepository } from '../adapters/dynamo/retraction-repository.js';
import { sanitizeLinks } from '../core/model/action-links.js';
import { InboxReadService } from '../core/read/inbox-read-service.js';
import type { StoredNotification } from '../core/model/notification.js';
import type { MutedTypesReader, RetractionsReader } from '../core/ports/inbox.js';
import { CachedRetractions } from '../core/read/retractions-cache.js';
import { findNotificationType } from '../notifications/deployed.js';
import type { InboxReadConfig } from './config.js';
import { documentClient, graphRepository, preferencesCache, type Parts } from './parts.js';

export function readStateRepository(parts: Parts, config: Pick<InboxReadConfig, 'readMarksTable'>): ReadStateRepository {
  return parts.once('read-state-repository', () => new ReadStateRepository(documentClient(parts), config.readMarksTable));
}

/** `reads`: which function's reads (the read and the write function each have theirs, as on AWS where they are separate containers). */
export function inboxReadService(parts: Parts, config: InboxReadConfig, reads: 'read' | 'write'): InboxReadService {
  return parts.once(`inbox-read-service:${reads}`, () =>
    new InboxReadService({
      inbox: parts.once('inbox-repository', () => new InboxRepository(documentClient(parts), config.inboxTable)),
      celebrities: graphRepository(parts, config.graphTable),
      feedHeads: graphRepository(parts, config.graphTable),
      celebrityPosts: parts.once('celebrity-posts-log', () => new DynamoCelebrityPostsLog(documentClient(parts), config.inboxTable)),
      readState: readStateRepository(parts, config),
      clock: parts.clock,
      cursorSecret: config.cursorSecret,
      feedShards: config.feedShards,
      inboxTtlDays: config.inboxTtlDays,
      mutedTypes: mutedTypesReader(parts, config),
      retractions: retractionsReader(parts, config),
      linksOf: catalogLinksOf,
    }),
  );
}

export function retractionRepository(parts: Parts, inboxTable: string): RetractionRepository {
  return parts.once('retraction-repository', () => new RetractionRepository(documentClient(parts), inboxTable));
}

/** A container reuses a tenant's retraction list this long (pages and counts of a warm container pay no extra request). */
export const RETRACTIONS_CACHE_TTL_MS_DEFAULT = 5_000;

export function retractionsReader(parts: Parts, config: Pick<InboxReadConfig, 'inboxTable' | 'retractionsCacheTtlMs'>): RetractionsReader {
  return parts.once('retractions-cache', () => new CachedRetractions(retractionRepository(parts, config.inboxTable), config.retractionsCacheTtlMs ?? RETRACTIONS_CACHE_TTL_MS_DEFAULT, parts.clock));
}

/** The action link and buttons the item's catalog type declares, sanitized; a stored item its type no longer parses shows none. */
function catalogLinksOf(item: StoredNotification) {
  const type = findNotificationType(item.type);
  if (!type?.links) return {};
  try {
    return sanitizeLinks(type.links(item.data));
  } catch {
    return {};
  }
}

/** Muted types for the inbox read: unreadable preferences mute nothing (show everything rather than hide). */
function mutedTypesReader(parts: Parts, config: InboxReadConfig): MutedTypesReader {
  const reader = preferencesCache(parts, config);
  return {
    async mutedTypesOf(user) {
      const lookup = await reader.getOne(user.tenantId, user.userId);
      return lookup.status === 'unreadable' ? [] : lookup.preferences.mutedTypes;
    },
  };
}
