/** Lambda entry: WebSocket $disconnect. */
import { Logger } from '@aws-lambda-powertools/logger';
import { createDocumentClient } from '../adapters/dynamo/document-client.js';
import { disconnectDepsFromEnv } from './live-dependencies.js';
import { createDisconnectHandler } from './websocket/routes.js';

const logger = new Logger({ serviceName: 'ws-disconnect' });
export const handler = createDisconnectHandler(disconnectDepsFromEnv(process.env, createDocumentClient(), logger));
