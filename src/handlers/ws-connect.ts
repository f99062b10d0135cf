/** Lambda entry: WebSocket $connect (authorized by the REQUEST authorizer on the `token` query parameter). */
import { Logger } from '@aws-lambda-powertools/logger';
import { createDocumentClient } from '../adapters/dynamo/document-client.js';
import { connectDepsFromEnv } from './live-dependencies.js';
import { createConnectHandler } from './websocket/routes.js';

const logger = new Logger({ serviceName: 'ws-connect' });
export const handler = createConnectHandler(connectDepsFromEnv(process.env, createDocumentClient(), logger));
