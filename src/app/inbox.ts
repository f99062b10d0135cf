/**
 * The inbox service shared by the inbox read and write functions: one per container, with the
 * read-state sync to connected devices when the function has the WebSocket endpoint.
 */
import { InboxRepository } from '../adapters/dynamo/inbox-repository.js';
import { ReadStateRepository } from '../adapters/dynamo/read-state-repository.js';
import { InboxService } from '../core/inbox-service.js';
import type { MutedTypesReader, ReadStateListener, UserRef } from '../core/ports/inbox.js';
import { ReadStateSync } from '../core/read-state-sync.js';
import type { InboxWriteConfig } from './config.js';
import { connectionPusher } from './parts-live.js';
import { connectionRepository, documentClient, graphRepository, preferencesCache, type Parts } from './parts.js';

/** `config.readStateSync` set: every read-state change is pushed as `read_state` to the user's devices. */
export function inboxService(parts: Parts, config: InboxWriteConfig): InboxService {
  return parts.once('inbox-service', () => {
    const readState = parts.once('read-state-repository', () => new ReadStateRepository(documentClient(parts), config.readMarksTable));
    // The sync reads counts from the service it listens to: bound through `service`, built below.
    let service: InboxService | undefined;
    const readStateListener = config.readStateSync ? readStateSyncListener(parts, config.readStateSync, readState, (user) => service!.counts(user)) : undefined;
    service = new InboxService({
      inbox: parts.once('inbox-repository', () => new InboxRepository(documentClient(parts), config.inboxTable)),
      celebrities: graphRepository(parts, config.graphTable),
      readState,
      clock: parts.clock,
      cursorSecret: config.cursorSecret,
      feedShards: config.feedShards,
      inboxTtlDays: config.inboxTtlDays,
      ...(readStateListener ? { readStateListener } : {}),
      mutedTypes: mutedTypesReader(parts, config),
    });
    return service;
  });
}

/** A failed sync is logged, never turned into a failed REST call (the write itself succeeded). */
function readStateSyncListener(
  parts: Parts,
  config: NonNullable<InboxWriteConfig['readStateSync']>,
  readState: ReadStateRepository,
  counts: (user: UserRef) => ReturnType<InboxService['counts']>,
): ReadStateListener {
  const sync = new ReadStateSync({
    directory: connectionRepository(parts, config),
    pusher: connectionPusher(parts, config.managementEndpoint),
    readState,
    counts: { counts },
  });
  return {
    async readStateChanged(user) {
      try {
        await sync.readStateChanged(user);
      } catch (error) {
        parts.logger.warn('read_state sync failed', { tenantId: user.tenantId, userId: user.userId, error: error as Error });
      }
    },
  };
}

/** Muted types for the inbox read: unreadable preferences mute nothing (show everything rather than hide). */
function mutedTypesReader(parts: Parts, config: InboxWriteConfig): MutedTypesReader {
  const reader = preferencesCache(parts, config);
  return {
    async mutedTypesOf(user) {
      const lookup = await reader.getOne(user.tenantId, user.userId);
      return lookup.status === 'unreadable' ? [] : lookup.preferences.mutedTypes;
    },
  };
}
