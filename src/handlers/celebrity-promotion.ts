/**
 * Lambda entry: the paged background pass run when an account enters the celebrity tier.
 * Env: PROMOTION_QUEUE_URL, GRAPH_TABLE.
 */
import { SQSClient } from '@aws-sdk/client-sqs';
import { Logger } from '@aws-lambda-powertools/logger';
import { createDocumentClient } from '../adapters/dynamo/document-client.js';
import { createCelebrityPromotionHandler } from './celebrity-promotion-handler.js';
import { celebrityPromotionServiceFromEnv } from './pipeline-dependencies.js';

const logger = new Logger({ serviceName: 'celebrity-promotion' });
const service = celebrityPromotionServiceFromEnv(process.env, { documentClient: createDocumentClient(), sqsClient: new SQSClient({}) });

export const handler = createCelebrityPromotionHandler({ service, logger });
