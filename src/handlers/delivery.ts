/** Lambda entry: delivery consumer of one priority queue (`DELIVERY_MODE=urgent|info`). */
import { Logger } from '@aws-lambda-powertools/logger';
import { createDocumentClient } from '../adapters/dynamo/document-client.js';
import { createDeliveryHandler } from './delivery-handler.js';
import { deliveryModeFromEnv, liveDeliveryFromEnv, managementClientFromEnv } from './live-dependencies.js';

const mode = deliveryModeFromEnv(process.env);
const logger = new Logger({ serviceName: `delivery-${mode}` });
export const handler = createDeliveryHandler({
  delivery: liveDeliveryFromEnv(process.env, createDocumentClient(), managementClientFromEnv(process.env), logger),
  mode,
  logger,
});
