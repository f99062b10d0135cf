/** Lambda entry: delivery consumer of one priority queue (`DELIVERY_MODE=urgent|info`). */
import { Logger } from '@aws-lambda-powertools/logger';
import { createDocumentClient } from '../adapters/dynamo/document-client.js';
import { createDeliveryHandler } from './delivery-handler.js';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { SQSClient } from '@aws-sdk/client-sqs';
import { SqsDeliveryJobQueue } from '../adapters/sqs/sqs-delivery-job-queue.js';
import { deliveryModeFromEnv, heldPushReleaserFromEnv, liveDeliveryFromEnv, managementClientFromEnv } from './live-dependencies.js';
import { eventBridgeSchedulerFromEnv, liveGateFromEnv } from './preferences-dependencies.js';

const mode = deliveryModeFromEnv(process.env);
const logger = new Logger({ serviceName: `delivery-${mode}` });
const documentClient = createDocumentClient();
const management = managementClientFromEnv(process.env);
// Quiet hours, live delivery per type, rate limit; held pushes come back through release schedules.
const gate = liveGateFromEnv(process.env, documentClient, eventBridgeSchedulerFromEnv(process.env, new SchedulerClient({})), logger);
// Celebrity posts: shard, next-page and put-back jobs go back onto the delivery queues.
const celebrityJobQueue =
  process.env.URGENT_QUEUE_URL && process.env.INFO_QUEUE_URL
    ? new SqsDeliveryJobQueue(new SQSClient({}), { urgent: process.env.URGENT_QUEUE_URL, info: process.env.INFO_QUEUE_URL })
    : undefined;
export const handler = createDeliveryHandler({
  delivery: liveDeliveryFromEnv(process.env, documentClient, management, logger, gate, celebrityJobQueue),
  releaser: heldPushReleaserFromEnv(process.env, documentClient, management, gate),
  mode,
  logger,
});
