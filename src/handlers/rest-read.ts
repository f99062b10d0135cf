/** Lambda entry: GET /notifications, GET /notifications/counts. */
import { Logger } from '@aws-lambda-powertools/logger';
import { createDocumentClient } from '../adapters/dynamo/document-client.js';
import { inboxApiDepsFromEnv } from './dependencies.js';
import { createInboxReadHandler } from './rest/inbox-api.js';

const logger = new Logger({ serviceName: 'inbox-read-api' });
export const handler = createInboxReadHandler(inboxApiDepsFromEnv(process.env, createDocumentClient(), logger));
