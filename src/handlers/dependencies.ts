/**
 * Builds handler dependencies from environment variables. Lambda entry points call these once per
 * container; the local runtime calls the same functions with its own env and DynamoDB client.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Logger } from '@aws-lambda-powertools/logger';
import { InboxService } from '../core/inbox-service.js';
import { DEFAULT_FEED_SHARDS } from '../core/feed-shards.js';
import { INBOX_TTL_DAYS_DEFAULT } from '../core/notification.js';
import { systemClock, type Clock, type ReadStateListener } from '../core/ports.js';
import { corsAllowOriginsFromEnv, intEnv, requireEnv, tableNameFromEnv } from '../config.js';
import { GraphRepository } from '../adapters/dynamo/graph-repository.js';
import { InboxRepository } from '../adapters/dynamo/inbox-repository.js';
import { ReadStateRepository } from '../adapters/dynamo/read-state-repository.js';
import { DEFAULT_TENANT_CLAIM, createJwtVerifier, type TokenVerifier } from '../adapters/jwt-verifier.js';
import type { InboxApiDeps } from './rest/inbox-api.js';
import { mutedTypesReaderFromEnv } from './preferences-dependencies.js';

export interface InboxServiceOptions {
  clock?: Clock;
  readStateListener?: ReadStateListener;
}

export function inboxServiceFromEnv(env: NodeJS.ProcessEnv, client: DynamoDBDocumentClient, options: InboxServiceOptions = {}): InboxService {
  const graph = new GraphRepository(client, tableNameFromEnv('graph', env));
  return new InboxService({
    inbox: new InboxRepository(client, tableNameFromEnv('inbox', env)),
    celebrities: graph,
    feedHeads: graph,
    readState: new ReadStateRepository(client, tableNameFromEnv('readMarks', env)),
    clock: options.clock ?? systemClock,
    cursorSecret: requireEnv('CURSOR_SECRET', env),
    feedShards: intEnv('FEED_SHARDS', DEFAULT_FEED_SHARDS, env),
    inboxTtlDays: intEnv('INBOX_TTL_DAYS', INBOX_TTL_DAYS_DEFAULT, env),
    readStateListener: options.readStateListener,
    mutedTypes: mutedTypesReaderFromEnv(env, client),
  });
}

export function inboxApiDepsFromEnv(env: NodeJS.ProcessEnv, client: DynamoDBDocumentClient, logger: Logger, options: InboxServiceOptions = {}): InboxApiDeps {
  return {
    service: inboxServiceFromEnv(env, client, options),
    cursorSecret: requireEnv('CURSOR_SECRET', env),
    tenantClaim: env.TENANT_CLAIM || DEFAULT_TENANT_CLAIM,
    corsAllowOrigins: corsAllowOriginsFromEnv(env),
    logger,
  };
}

/** `jwt` auth mode: issuer, audience and JWKS URL of the identity provider. */
export function tokenVerifierFromEnv(env: NodeJS.ProcessEnv): TokenVerifier {
  return createJwtVerifier({
    issuer: requireEnv('JWT_ISSUER', env),
    audience: requireEnv('JWT_AUDIENCE', env),
    jwks: new URL(requireEnv('JWKS_URL', env)),
    tenantClaim: env.TENANT_CLAIM || DEFAULT_TENANT_CLAIM,
  });
}
