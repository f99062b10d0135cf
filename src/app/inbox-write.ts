/** Composition of the inbox write function: POST /notifications/read-all, /seen-all, /{id}/read. */
import { Logger } from '@aws-lambda-powertools/logger';
import { DEFAULT_TENANT_CLAIM } from '../adapters/jwt-verifier.js';
import { createInboxWriteHandler } from '../handlers/rest/inbox-api.js';
import { ENV, inboxWriteConfigFromEnv, type Env, type InboxWriteConfig } from './config.js';
import { inboxService } from './inbox.js';
import { createParts, type Parts } from './parts.js';

export function composeInboxWrite(parts: Parts, config: InboxWriteConfig) {
  // Read-state sync to the user's devices needs the WebSocket API; without it the REST API still works.
  if (!config.readStateSync) parts.logger.warn(`${ENV.WS_MANAGEMENT_ENDPOINT} is not set: read_state is not pushed to connected devices`);
  return createInboxWriteHandler({
    service: inboxService(parts, config),
    cursorSecret: config.cursorSecret,
    tenantClaim: config.tenantClaim ?? DEFAULT_TENANT_CLAIM,
    corsAllowOrigins: config.corsAllowOrigins,
    logger: parts.logger,
  });
}

export function inboxWriteFunction(env: Env) {
  return composeInboxWrite(createParts({ logger: new Logger({ serviceName: 'inbox-write-api' }) }), inboxWriteConfigFromEnv(env));
}
