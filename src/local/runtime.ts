/**
 * The local runtime: the same handlers as on AWS, on one machine, with dynalite for DynamoDB and
 * local stand-ins for API Gateway (REST), and the identity provider. No AWS account, no Docker.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Logger } from '@aws-lambda-powertools/logger';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../adapters/dynamo/document-client.js';
import { DEFAULT_TENANT_CLAIM, createJwtVerifier } from '../adapters/jwt-verifier.js';
import { createAuthorizerHandler } from '../handlers/authorizer-handler.js';
import { inboxApiDepsFromEnv } from '../handlers/dependencies.js';
import { createInboxReadHandler, createInboxWriteHandler } from '../handlers/rest/inbox-api.js';
import { createPreferencesHandler } from '../handlers/rest/preferences-api.js';
import { preferencesApiDepsFromEnv } from '../handlers/preferences-dependencies.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION, startEmbeddedDynamo, tableEnv, type EmbeddedDynamo } from './embedded-dynamo.js';
import { createRequestListener, type LocalRoute } from './http-router.js';
import { createDemoPageRoute } from './demo-page.js';
import { createRestGateway } from './rest-gateway.js';
import { LocalScheduler } from './local-scheduler.js';
import { startLocalLiveDelivery, type LocalLiveDelivery } from './live-delivery.js';
import { startLocalPipeline, type LocalPipelineQueues } from './pipeline.js';
import type { LocalSettings } from './settings.js';
import { LOCAL_AUDIENCE, LOCAL_ISSUER, loadLocalSecrets, type LocalSecrets } from './signing-key.js';

export const EVENT_BUS_NAME = 'notifications';

export interface LocalEndpoints {
  http: string;
  ws: string;
  events: string;
  eventBusName: string;
}

export interface LocalRuntime {
  endpoints: LocalEndpoints;
  settings: LocalSettings;
  dynamo: EmbeddedDynamo;
  documentClient: DynamoDBDocumentClient;
  /** Environment the handlers are built from (table names, secrets, settings). */
  env: NodeJS.ProcessEnv;
  secrets: LocalSecrets;
  /** Local SQS queues of the event pipeline (intake per type, urgent, info, promotion; each with `.deadLetterQueue`), journaled under DATA_DIR/queues. */
  queues: LocalPipelineQueues;
  /** WebSocket gateway (+ `@connections`), delivery consumers and read-state sync. */
  live: LocalLiveDelivery;
  /** One-time schedules (EventBridge Scheduler stand-in), persisted under DATA_DIR/scheduler. */
  scheduler: LocalScheduler;
  close(): Promise<void>;
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}

export async function startLocalRuntime(settings: LocalSettings): Promise<LocalRuntime> {
  const logger = new Logger({ serviceName: 'local-runtime', logLevel: (process.env.LOG_LEVEL as 'WARN' | undefined) ?? 'WARN' });
  const dynamo = await startEmbeddedDynamo({ path: join(settings.dataDir, 'dynamodb') });
  const secrets = await loadLocalSecrets(settings.dataDir);
  const env: NodeJS.ProcessEnv = {
    ...tableEnv(dynamo.tableNames),
    CURSOR_SECRET: secrets.cursorSecret,
    FEED_SHARDS: String(settings.feedShards),
    CELEBRITY_THRESHOLD: String(settings.celebrityThreshold),
    INFO_BATCH_WINDOW_MS: String(settings.infoBatchWindowMs),
    TENANT_CLAIM: DEFAULT_TENANT_CLAIM,
    // The local gateway holds posts until $connect has finished, so no post races the handshake.
    HANDSHAKE_GRACE_SECONDS: '0',
    ...(settings.rateLimitPerMinute !== undefined ? { RATE_LIMIT_PER_MINUTE: String(settings.rateLimitPerMinute) } : {}),
    ...(settings.rateLimitWindowMs !== undefined ? { RATE_LIMIT_WINDOW_MS: String(settings.rateLimitWindowMs) } : {}),
    ...(settings.sendAtMinDelayMs !== undefined ? { SEND_AT_MIN_DELAY_MS: String(settings.sendAtMinDelayMs) } : {}),
  };
  // One-time schedules (sendAt, held live pushes), persisted with the data; armed once the queues exist.
  const scheduler = await LocalScheduler.open({ dir: join(settings.dataDir, 'scheduler'), logger });
  const documentClient = createDocumentClient({ endpoint: dynamo.endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });

  const verifier = createJwtVerifier({ issuer: LOCAL_ISSUER, audience: LOCAL_AUDIENCE, jwks: secrets.jwks, tenantClaim: DEFAULT_TENANT_CLAIM });
  const authorizer = createAuthorizerHandler(verifier, logger);
  // WebSocket API on WS_PORT (0 = any free port), same handlers as AWS; its @connections endpoint is WS_MANAGEMENT_ENDPOINT.
  const live = await startLocalLiveDelivery({ host: settings.host, port: settings.wsPort, env, documentClient, authorizer, logger, scheduler });
  Object.assign(env, live.env);
  const apiDeps = inboxApiDepsFromEnv(env, documentClient, logger, { readStateListener: live.readStateListener });
  const routes: LocalRoute[] = [
    {
      async handle(request) {
        if (request.method !== 'GET' || request.url.pathname !== '/.well-known/jwks.json') return undefined;
        return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(secrets.jwks) };
      },
    },
    createRestGateway(
      {
        inboxRead: createInboxReadHandler(apiDeps),
        inboxWrite: createInboxWriteHandler(apiDeps),
        preferences: createPreferencesHandler(preferencesApiDepsFromEnv(env, documentClient, logger)),
      },
      authorizer,
      apiDeps.corsAllowOrigins,
    ),
  ];

  const httpServer = createServer(createRequestListener(() => routes, (error) => logger.error('local http error', { error: error as Error })));
  const httpPort = await listen(httpServer, settings.port, settings.host);
  const http = `http://${settings.host}:${httpPort}`;
  // Event pipeline: PutEvents + SQS endpoints on this server; queue URLs need its port. Queues are journaled under DATA_DIR/queues.
  const pipeline = startLocalPipeline({
    httpEndpoint: http,
    dynamoEndpoint: dynamo.endpoint,
    env,
    settings,
    busName: EVENT_BUS_NAME,
    logger,
    scheduler,
    queueDir: join(settings.dataDir, 'queues'),
  });
  Object.assign(env, pipeline.env);
  routes.unshift(...pipeline.routes);
  // Dev-only: the demo inbox page at `/` and its token and catalog helpers (src/local/demo-page.ts).
  routes.push(createDemoPageRoute({ secrets, endpoints: () => ({ http, ws: live.gateway.endpoint, events: http, eventBusName: EVENT_BUS_NAME }) }));
  live.attachConsumers(pipeline.queues);
  scheduler.start(async (targetArn, payload) => {
    pipeline.queues.registry.byQueueName(targetArn.split(':').pop()).send(payload);
  });
  return {
    endpoints: { http, ws: live.gateway.endpoint, events: http, eventBusName: EVENT_BUS_NAME },
    settings,
    dynamo,
    documentClient,
    env,
    secrets,
    queues: pipeline.queues,
    live,
    scheduler,
    async close() {
      await scheduler.close();
      await live.close();
      await pipeline.close();
      await close(httpServer);
      documentClient.destroy();
      await dynamo.close();
    },
  };
}
