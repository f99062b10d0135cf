/** Composition of the inbox read function: GET /notifications, GET /notifications/counts. */
import { Logger } from '@aws-lambda-powertools/logger';
import { DEFAULT_TENANT_CLAIM } from '../adapters/jwt-verifier.js';
import { createInboxReadHandler } from '../handlers/rest/inbox-api.js';
import { inboxReadConfigFromEnv, type Env, type InboxReadConfig } from './config.js';
import { inboxReadService } from './inbox.js';
import { createParts, type Parts } from './parts.js';
import { catalog } from '../notifications/deployed.js';

export function composeInboxRead(parts: Parts, config: InboxReadConfig) {
  return createInboxReadHandler({
    reads: inboxReadService(parts, config, 'read'),
    cursorSecret: config.cursorSecret,
    tenantClaim: config.tenantClaim ?? DEFAULT_TENANT_CLAIM,
    corsAllowOrigins: config.corsAllowOrigins,
    logger: parts.logger,
    catalog,
  });
}

export function inboxReadFunction(env: Env) {
  return composeInboxRead(createParts({ logger: new Logger({ serviceName: 'inbox-read-api' }) }), inboxReadConfigFromEnv(env));
}
