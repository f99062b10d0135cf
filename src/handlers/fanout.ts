/**
 * Lambda entry: the fan-out function of one notification type (`NOTIFICATION_TYPE`), fed by that
 * type's intake queue. Env: NOTIFICATION_TYPE, the URLs of the queues that type sends to
 * (fanOutQueueNeeds: URGENT_QUEUE_URL + INFO_QUEUE_URL, PROMOTION_QUEUE_URL), CELEBRITY_THRESHOLD, FEED_SHARDS, INBOX_TTL_DAYS, INBOX_TABLE, GRAPH_TABLE, IDEMPOTENCY_TABLE,
 * INTAKE_QUEUE_ARN, SCHEDULE_GROUP_NAME, SCHEDULER_ROLE_ARN, SEND_AT_MIN_DELAY_MS, PREFERENCES_CACHE_TTL_MS.
 */
import { createDynamoClients } from '../adapters/dynamo/document-client.js';
import { SQSClient } from '@aws-sdk/client-sqs';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { Logger } from '@aws-lambda-powertools/logger';
import { createFanOutHandler } from './fanout-handler.js';
import { fanOutHandlerDepsFromEnv } from './pipeline-dependencies.js';
import { eventBridgeSchedulerFromEnv } from './preferences-dependencies.js';

const logger = new Logger({ serviceName: 'fanout' });
const { dynamoClient, documentClient } = createDynamoClients();
const sqsClient = new SQSClient({});

const scheduler = eventBridgeSchedulerFromEnv(process.env, new SchedulerClient({}));

export const handler = createFanOutHandler(fanOutHandlerDepsFromEnv(process.env, { documentClient, dynamoClient, sqsClient }, logger, undefined, scheduler));
