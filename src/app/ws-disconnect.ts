/** Composition of WebSocket $disconnect: the Connections table only. */
import { Logger } from '@aws-lambda-powertools/logger';
import { createDisconnectHandler } from '../handlers/websocket/routes.js';
import { wsDisconnectConfigFromEnv, type ConnectionsConfig, type Env } from './config.js';
import { connectionRepository, createParts, type Parts } from './parts.js';

export function composeWsDisconnect(parts: Parts, config: ConnectionsConfig) {
  return createDisconnectHandler({ connections: connectionRepository(parts, config), logger: parts.logger });
}

export function wsDisconnectFunction(env: Env) {
  return composeWsDisconnect(createParts({ logger: new Logger({ serviceName: 'ws-disconnect' }) }), wsDisconnectConfigFromEnv(env));
}
