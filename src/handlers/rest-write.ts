/** Lambda entry: POST /notifications/read-all, /seen-all, /{id}/read. */
import { Logger } from '@aws-lambda-powertools/logger';
import { createDocumentClient } from '../adapters/dynamo/document-client.js';
import { inboxApiDepsFromEnv } from './dependencies.js';
import { managementClientFromEnv, readStateSyncFromEnv } from './live-dependencies.js';
import { createInboxWriteHandler } from './rest/inbox-api.js';

const logger = new Logger({ serviceName: 'inbox-write-api' });
const client = createDocumentClient();
// Read-state sync to the user's devices needs the WebSocket API; without it the REST API still works.
const readStateListener = process.env.WS_MANAGEMENT_ENDPOINT
  ? readStateSyncFromEnv(process.env, client, managementClientFromEnv(process.env), logger)
  : undefined;
if (!readStateListener) logger.warn('WS_MANAGEMENT_ENDPOINT is not set: read_state is not pushed to connected devices');
export const handler = createInboxWriteHandler(inboxApiDepsFromEnv(process.env, client, logger, { readStateListener }));
