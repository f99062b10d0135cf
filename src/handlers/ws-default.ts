/** Lambda entry: WebSocket $default route (`{"action":"ping"}` -> `{"type":"pong"}`). */
import { Logger } from '@aws-lambda-powertools/logger';
import { createDocumentClient } from '../adapters/dynamo/document-client.js';
import { managementClientFromEnv, webSocketRouteDepsFromEnv } from './live-dependencies.js';
import { createDefaultHandler } from './websocket/routes.js';

const logger = new Logger({ serviceName: 'ws-default' });
export const handler = createDefaultHandler(webSocketRouteDepsFromEnv(process.env, createDocumentClient(), managementClientFromEnv(process.env), logger));
