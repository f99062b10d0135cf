/** Lambda entry: POST /notifications/read-all, /seen-all, /{id}/read. */
import { Logger } from '@aws-lambda-powertools/logger';
import { createDocumentClient } from '../adapters/dynamo/document-client.js';
import { inboxApiDepsFromEnv } from './dependencies.js';
import { createInboxWriteHandler } from './rest/inbox-api.js';

const logger = new Logger({ serviceName: 'inbox-write-api' });
export const handler = createInboxWriteHandler(inboxApiDepsFromEnv(process.env, createDocumentClient(), logger));
