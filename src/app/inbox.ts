/**
 * The inbox service of the inbox read and write functions, one per container. The write function
 * passes its read-state listener (the sync to connected devices, src/app/inbox-write.ts).
 */
import { DynamoCelebrityPostsLog } from '../adapters/dynamo/celebrity-posts-log.js';
import { InboxRepository } from '../adapters/dynamo/inbox-repository.js';
import { ReadStateRepository } from '../adapters/dynamo/read-state-repository.js';
import { InboxService } from '../core/inbox-service.js';
import type { MutedTypesReader, ReadStateListener } from '../core/ports/inbox.js';
import type { InboxReadConfig } from './config.js';
import { documentClient, graphRepository, preferencesCache, type Parts } from './parts.js';

export function readStateRepository(parts: Parts, config: Pick<InboxReadConfig, 'readMarksTable'>): ReadStateRepository {
  return parts.once('read-state-repository', () => new ReadStateRepository(documentClient(parts), config.readMarksTable));
}

export function inboxService(parts: Parts, config: InboxReadConfig, readStateListener?: ReadStateListener): InboxService {
  return parts.once(readStateListener ? 'inbox-service+read-state-sync' : 'inbox-service', () =>
    new InboxService({
      inbox: parts.once('inbox-repository', () => new InboxRepository(documentClient(parts), config.inboxTable)),
      celebrities: graphRepository(parts, config.graphTable),
      feedHeads: graphRepository(parts, config.graphTable),
      celebrityPosts: parts.once('celebrity-posts-log', () => new DynamoCelebrityPostsLog(documentClient(parts), config.inboxTable)),
      readState: readStateRepository(parts, config),
      clock: parts.clock,
      cursorSecret: config.cursorSecret,
      feedShards: config.feedShards,
      inboxTtlDays: config.inboxTtlDays,
      ...(readStateListener ? { readStateListener } : {}),
      mutedTypes: mutedTypesReader(parts, config),
    }),
  );
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
