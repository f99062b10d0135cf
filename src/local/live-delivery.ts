/**
 * Live delivery in the local runtime: the WebSocket gateway with the same route handlers as AWS, the
 * delivery consumers of the urgent and info queues, and the read-state listener of the REST write
 * handler, all talking to `@connections` through the real management API client.
 */
import type { ApiGatewayManagementApiClient } from '@aws-sdk/client-apigatewaymanagementapi';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { createManagementApiClient } from '../adapters/connection-pusher.js';
import type { ReadStateListener } from '../core/ports/inbox.js';
import { createDeliveryHandler } from '../handlers/delivery-handler.js';
import { connectDepsFromEnv, defaultRouteDepsFromEnv, disconnectDepsFromEnv, heldPushReleaserFromEnv, liveDeliveryFromEnv, readStateSyncFromEnv } from '../handlers/live-dependencies.js';
import { liveGateFromEnv } from '../handlers/preferences-dependencies.js';
import type { Scheduler } from '../core/ports/scheduler.js';
import { createConnectHandler, createDefaultHandler, createDisconnectHandler } from '../handlers/websocket/routes.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from './embedded-dynamo.js';
import { startWebSocketGateway, type LocalWebSocketGateway } from './websocket-gateway.js';

type DeliveryConsumer = (event: SQSEvent) => Promise<SQSBatchResponse>;

/** The local urgent / info delivery queues (their consumer settings: batch size, batching window). */
export interface DeliveryQueues {
  /** `arn`: where release schedules deliver held pushes (no batching window). */
  urgent: { attachConsumer(handler: DeliveryConsumer): () => void; arn?: string };
  info: { attachConsumer(handler: DeliveryConsumer): () => void };
}

export interface LocalLiveDelivery {
  gateway: LocalWebSocketGateway;
  /** `WS_MANAGEMENT_ENDPOINT` for the handlers' environment. */
  env: Record<string, string>;
  readStateListener: ReadStateListener;
  /** Attaches the urgent and info delivery consumers (`DELIVERY_MODE` urgent / info on AWS). */
  attachConsumers(queues: DeliveryQueues): void;
  close(): Promise<void>;
}

export interface LocalLiveDeliveryOptions {
  host: string;
  port: number;
  /** Table names and settings (the runtime's handler environment). */
  env: NodeJS.ProcessEnv;
  documentClient: DynamoDBDocumentClient;
  authorizer: (event: APIGatewayRequestAuthorizerEvent) => Promise<APIGatewayAuthorizerResult>;
  logger: Logger;
  /** The local scheduler: quiet-hours and rate-limit holds are released through it (needs `RELEASE_QUEUE_ARN`). */
  scheduler?: Scheduler;
}

export async function startLocalLiveDelivery(options: LocalLiveDeliveryOptions): Promise<LocalLiveDelivery> {
  const { documentClient, logger } = options;
  const gateway = await startWebSocketGateway({ host: options.host, port: options.port, authorizer: options.authorizer, logger });
  const env = { ...options.env, WS_MANAGEMENT_ENDPOINT: gateway.managementEndpoint };
  const management: ApiGatewayManagementApiClient = createManagementApiClient(gateway.managementEndpoint, { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  gateway.attach({
    connect: createConnectHandler(connectDepsFromEnv(env, documentClient, logger)),
    disconnect: createDisconnectHandler(disconnectDepsFromEnv(env, documentClient, logger)),
    default: createDefaultHandler(defaultRouteDepsFromEnv(management, logger)),
  });
  const detach: (() => void)[] = [];
  return {
    gateway,
    env: { WS_MANAGEMENT_ENDPOINT: gateway.managementEndpoint },
    readStateListener: readStateSyncFromEnv(env, documentClient, management, logger),
    attachConsumers(queues) {
      // Built at attach time: the queue ARNs (RELEASE_QUEUE_ARN) are in the env by then.
      const gateEnv = queues.urgent.arn ? { ...env, RELEASE_QUEUE_ARN: queues.urgent.arn } : env;
      const gate = options.scheduler ? liveGateFromEnv(gateEnv, documentClient, options.scheduler, logger) : undefined;
      const releaser = gate ? heldPushReleaserFromEnv(env, documentClient, management, gate) : undefined;
      for (const mode of ['urgent', 'info'] as const) {
        const handler = createDeliveryHandler({ delivery: liveDeliveryFromEnv(env, documentClient, management, logger, gate), mode, logger, ...(releaser ? { releaser } : {}) });
        detach.push(queues[mode].attachConsumer(handler));
      }
    },
    async close() {
      for (const stop of detach.splice(0)) stop();
      await gateway.close();
      management.destroy();
    },
  };
}
