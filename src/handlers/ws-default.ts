/** Lambda entry: WebSocket $default route (`{"action":"ping"}` -> `{"type":"pong"}`). */
import { Logger } from '@aws-lambda-powertools/logger';
import { defaultRouteDepsFromEnv, managementClientFromEnv } from './live-dependencies.js';
import { createDefaultHandler } from './websocket/routes.js';

const logger = new Logger({ serviceName: 'ws-default' });
export const handler = createDefaultHandler(defaultRouteDepsFromEnv(managementClientFromEnv(process.env), logger));
