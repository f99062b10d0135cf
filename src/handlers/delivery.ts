/** Lambda entry: delivery consumer of one priority queue (`DELIVERY_MODE=urgent|info`). */
import { Logger } from '@aws-lambda-powertools/logger';
import { createDocumentClient } from '../adapters/dynamo/document-client.js';
import { createDeliveryHandler } from './delivery-handler.js';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { deliveryModeFromEnv, heldPushReleaserFromEnv, liveDeliveryFromEnv, managementClientFromEnv } from './live-dependencies.js';
import { eventBridgeSchedulerFromEnv, liveGateFromEnv } from './preferences-dependencies.js';

const mode = deliveryModeFromEnv(process.env);
const logger = new Logger({ serviceName: `delivery-${mode}` });
const documentClient = createDocumentClient();
const management = managementClientFromEnv(process.env);
// Quiet hours, live delivery per type, rate limit; held pushes come back through release schedules.
const gate = liveGateFromEnv(process.env, documentClient, eventBridgeSchedulerFromEnv(process.env, new SchedulerClient({})), logger);
export const handler = createDeliveryHandler({
  delivery: liveDeliveryFromEnv(process.env, documentClient, management, logger, gate),
  releaser: heldPushReleaserFromEnv(process.env, documentClient, management, gate),
  mode,
  logger,
});
