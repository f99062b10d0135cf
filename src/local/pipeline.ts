/**
 * The local event pipeline, wired like the CDK app: EventBridge bus -> one intake queue (+DLQ) and
 * fan-out consumer per catalog type -> urgent / info delivery queues (+DLQs), and the promotion
 * queue (+DLQ) with its consumer. The fan-out code talks to the queues through the real SQS SDK
 * against the local HTTP server, and to DynamoDB through dynalite.
 */
import { createDynamoClients } from '../adapters/dynamo/document-client.js';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { Logger } from '@aws-lambda-powertools/logger';
import { catalog, findNotificationType, resourceNameOf } from '../notifications/index.js';
import { createFanOutHandler } from '../handlers/fanout-handler.js';
import { createCelebrityPromotionHandler } from '../handlers/celebrity-promotion-handler.js';
import { celebrityPromotionServiceFromEnv, fanOutHandlerDepsFromEnv } from '../handlers/pipeline-dependencies.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from './embedded-dynamo.js';
import { createEventBusRoute } from './event-bus.js';
import type { LocalRoute } from './http-router.js';
import type { LocalSettings } from './settings.js';
import type { Scheduler } from '../core/schedules.js';
import { LocalQueue, LocalQueueRegistry, createSqsRoute, loadLocalSqsCredentials, type ConsumerOptions, type LocalSqsCredentials } from './sqs-queues.js';

/** The local queues, for tests and for the live-delivery consumers (attach to `urgent` / `info`). */
export interface LocalPipelineQueues {
  urgent: LocalQueue;
  info: LocalQueue;
  promotion: LocalQueue;
  /** Intake queue of each notification type, by detail-type. */
  intake: Record<string, LocalQueue>;
  registry: LocalQueueRegistry;
}

export interface LocalPipeline {
  routes: LocalRoute[];
  queues: LocalPipelineQueues;
  /** Env entries the pipeline's functions read (queue URLs). */
  env: Record<string, string>;
  /** The SigV4 credentials the local SQS endpoint requires (kept in the queue directory); the runtime's SQS clients sign with them. */
  sqsCredentials: LocalSqsCredentials;
  close(): Promise<void>;
}

export interface LocalPipelineOptions {
  /** The local HTTP server's URL: the SQS and EventBridge endpoints. */
  httpEndpoint: string;
  dynamoEndpoint: string;
  /** Runtime env (table names, settings). */
  env: NodeJS.ProcessEnv;
  settings: LocalSettings;
  busName: string;
  logger: Logger;
  /** The local scheduler (`sendAt` re-enters a type's intake queue through it). */
  scheduler?: Scheduler;
  /** Directory of the queue journals (durable queues, DATA_DIR/queues); without it the queues are in memory. */
  queueDir?: string;
}

/** Local function timeout; the queues' visibility timeout is VISIBILITY_FACTOR times it, as the CDK app derives it on AWS. */
export const DEFAULT_LOCAL_FUNCTION_TIMEOUT_MS = 5_000;
export const VISIBILITY_FACTOR = 6;
export const DEFAULT_LOCAL_VISIBILITY_TIMEOUT_MS = VISIBILITY_FACTOR * DEFAULT_LOCAL_FUNCTION_TIMEOUT_MS;
export const DEFAULT_LOCAL_MAX_RECEIVE_COUNT = 5;

export function startLocalPipeline(options: LocalPipelineOptions): LocalPipeline {
  const { settings, logger } = options;
  const registry = new LocalQueueRegistry();
  const functionTimeoutMs = settings.functionTimeoutMs ?? DEFAULT_LOCAL_FUNCTION_TIMEOUT_MS;
  const visibilityTimeoutMs = settings.queueVisibilityTimeoutMs ?? VISIBILITY_FACTOR * functionTimeoutMs;
  const maxReceiveCount = settings.maxReceiveCount ?? DEFAULT_LOCAL_MAX_RECEIVE_COUNT;
  const onError = (error: unknown) => logger.error('local consumer invocation failed', { error: error as Error });
  const journalDir = options.queueDir;
  const queueWithDlq = (name: string, consumerDefaults: ConsumerOptions = {}) => {
    const deadLetterQueue = registry.add(new LocalQueue({ name: `${name}-dlq`, baseUrl: options.httpEndpoint, region: LOCAL_REGION, visibilityTimeoutMs, functionTimeoutMs, journalDir, onError }));
    return registry.add(
      new LocalQueue({ name, baseUrl: options.httpEndpoint, region: LOCAL_REGION, visibilityTimeoutMs, functionTimeoutMs, maxReceiveCount, deadLetterQueue, consumerDefaults, journalDir, onError }),
    );
  };

  const queues: LocalPipelineQueues = {
    // Urgent: no batching window. Info: the batching window collapses several jobs per user.
    urgent: queueWithDlq('UrgentDelivery', { batchSize: 10, batchingWindowMs: 0, functionName: 'delivery-urgent' }),
    info: queueWithDlq('InfoDelivery', { batchSize: 100, batchingWindowMs: settings.infoBatchWindowMs, functionName: 'delivery-info' }),
    promotion: queueWithDlq('Promotion', { batchSize: 1, functionName: 'celebrity-promotion' }),
    intake: Object.fromEntries(catalog.map((type) => [type.detailType, queueWithDlq(`Intake${resourceNameOf(type.detailType)}`)])),
    registry,
  };
  const pipelineEnv = { URGENT_QUEUE_URL: queues.urgent.url, INFO_QUEUE_URL: queues.info.url, PROMOTION_QUEUE_URL: queues.promotion.url };
  const env = { ...options.env, ...pipelineEnv };

  const { dynamoClient, documentClient } = createDynamoClients({ endpoint: options.dynamoEndpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  const sqsCredentials = loadLocalSqsCredentials(journalDir);
  const sqsClient = new SQSClient({ endpoint: options.httpEndpoint, region: LOCAL_REGION, credentials: sqsCredentials });
  const clients = { documentClient, dynamoClient, sqsClient };

  for (const type of catalog) {
    const typeEnv = { ...env, NOTIFICATION_TYPE: type.detailType, INTAKE_QUEUE_ARN: queues.intake[type.detailType]!.arn };
    const handler = createFanOutHandler(fanOutHandlerDepsFromEnv(typeEnv, clients, logger, undefined, options.scheduler));
    queues.intake[type.detailType]!.attachConsumer(handler, { batchSize: 10, functionName: `fanout-${type.detailType}` });
  }
  queues.promotion.attachConsumer(createCelebrityPromotionHandler({ service: celebrityPromotionServiceFromEnv(env, clients), logger }));

  const routes: LocalRoute[] = [
    createEventBusRoute({
      busName: options.busName,
      region: LOCAL_REGION,
      findType: findNotificationType,
      intakeQueueOf: (detailType) => queues.intake[detailType],
      logger,
    }),
    createSqsRoute(registry, { credentials: sqsCredentials, serverHost: new URL(options.httpEndpoint).hostname }),
  ];

  return {
    routes,
    queues,
    env: pipelineEnv,
    sqsCredentials,
    async close() {
      for (const queue of registry.all()) queue.close();
      sqsClient.destroy();
      dynamoClient.destroy();
    },
  };
}
