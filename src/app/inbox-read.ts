/** The inbox read function (GET /notifications, GET /notifications/counts): its config and its composition. */
import { Logger } from '@aws-lambda-powertools/logger';
import { DEFAULT_TENANT_CLAIM } from '../adapters/jwt-verifier.js';
import type { Env } from '../env.js';
import { createInboxReadHandler } from '../handlers/rest/inbox-api.js';
import { deployedCatalog } from '../notifications/deployed.js';
import { parseEnv } from './config-parsing.js';
import { inboxOf, inboxReadService, inboxShape, type InboxReadConfig } from './inbox.js';
import { createParts, type Parts } from './parts.js';
import { restOf, restShape } from './shared-config.js';

export function inboxReadConfigFromEnv(env: Env): InboxReadConfig {
  const parsed = parseEnv('inbox-read', { ...inboxShape, ...restShape }, env);
  return { ...inboxOf(parsed), ...restOf(parsed) };
}

export function composeInboxRead(parts: Parts, config: InboxReadConfig) {
  return createInboxReadHandler({
    reads: inboxReadService(parts, config, 'read'),
    cursorSecret: config.cursorSecret,
    tenantClaim: config.tenantClaim ?? DEFAULT_TENANT_CLAIM,
    corsAllowOrigins: config.corsAllowOrigins,
    logger: parts.logger,
    catalog: deployedCatalog(),
  });
}

export function inboxReadFunction(env: Env) {
  return composeInboxRead(createParts({ logger: new Logger({ serviceName: 'inbox-read-api' }) }), inboxReadConfigFromEnv(env));
}
