/** Composition of the WebSocket $default route: the management API only (it answers the caller). */
import { Logger } from '@aws-lambda-powertools/logger';
import { createDefaultHandler } from '../handlers/websocket/routes.js';
import { wsDefaultConfigFromEnv, type Env, type WsDefaultConfig } from './config.js';
import { connectionPusher } from './parts-live.js';
import { createParts, type Parts } from './parts.js';

export function composeWsDefault(parts: Parts, config: WsDefaultConfig) {
  return createDefaultHandler({ pusher: connectionPusher(parts, config.managementEndpoint), logger: parts.logger });
}

export function wsDefaultFunction(env: Env) {
  return composeWsDefault(createParts({ logger: new Logger({ serviceName: 'ws-default' }) }), wsDefaultConfigFromEnv(env));
}
