/** Lambda entry: WebSocket $disconnect. */
import { Logger } from '@aws-lambda-powertools/logger';
import { createDocumentClient } from '../adapters/dynamo/document-client.js';
import { managementClientFromEnv, webSocketRouteDepsFromEnv } from './live-dependencies.js';
import { createDisconnectHandler } from './websocket/routes.js';

const logger = new Logger({ serviceName: 'ws-disconnect' });
export const handler = createDisconnectHandler(webSocketRouteDepsFromEnv(process.env, createDocumentClient(), managementClientFromEnv(process.env), logger));
