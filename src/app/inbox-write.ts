/** Composition of the inbox write function: POST /notifications/read-all, /seen-all, /{id}/read. */
import { Logger } from '@aws-lambda-powertools/logger';
import { DEFAULT_TENANT_CLAIM } from '../adapters/jwt-verifier.js';
import type { InboxService } from '../core/inbox-service.js';
import type { ReadStateListener, UserRef } from '../core/ports/inbox.js';
import { ReadStateSync } from '../core/read-state-sync.js';
import { createInboxWriteHandler } from '../handlers/rest/inbox-api.js';
import { ENV, inboxWriteConfigFromEnv, type Env, type InboxWriteConfig } from './config.js';
import { inboxService, readStateRepository } from './inbox.js';
import { connectionPusher } from './parts-live.js';
import { connectionRepository, createParts, type Parts } from './parts.js';

export function composeInboxWrite(parts: Parts, config: InboxWriteConfig) {
  // Read-state sync to the user's devices needs the WebSocket API; without it the REST API still works.
  if (!config.readStateSync) parts.logger.warn(`${ENV.WS_MANAGEMENT_ENDPOINT} is not set: read_state is not pushed to connected devices`);
  // The sync reads counts from the service it listens to: bound through a holder, filled below.
  const built: { service?: InboxService } = {};
  const listener = config.readStateSync ? readStateSyncListener(parts, config, (user) => built.service!.counts(user)) : undefined;
  const service = (built.service = inboxService(parts, config, listener));
  return createInboxWriteHandler({
    service,
    cursorSecret: config.cursorSecret,
    tenantClaim: config.tenantClaim ?? DEFAULT_TENANT_CLAIM,
    corsAllowOrigins: config.corsAllowOrigins,
    logger: parts.logger,
  });
}

/** A failed sync is logged, never turned into a failed REST call (the write itself succeeded). */
function readStateSyncListener(parts: Parts, config: InboxWriteConfig, counts: (user: UserRef) => ReturnType<InboxService['counts']>): ReadStateListener {
  const sync = new ReadStateSync({
    directory: connectionRepository(parts, config.readStateSync!),
    pusher: connectionPusher(parts, config.readStateSync!.managementEndpoint),
    readState: readStateRepository(parts, config),
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

export function inboxWriteFunction(env: Env) {
  return composeInboxWrite(createParts({ logger: new Logger({ serviceName: 'inbox-write-api' }) }), inboxWriteConfigFromEnv(env));
}
