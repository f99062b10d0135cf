/** WebSocket $disconnect: its config and its composition (the Connections table only). */
import { Logger } from '@aws-lambda-powertools/logger';
import type { Env } from '../env.js';
import { createDisconnectHandler } from '../handlers/websocket/routes.js';
import { parseEnv } from './config-parsing.js';
import { connectionRepository, createParts, type Parts } from './parts.js';
import { connectionsOf, connectionsShape, type ConnectionsConfig } from './shared-config.js';

export function wsDisconnectConfigFromEnv(env: Env): ConnectionsConfig {
  return connectionsOf(parseEnv('ws-disconnect', connectionsShape, env));
}

export function composeWsDisconnect(parts: Parts, config: ConnectionsConfig) {
  return createDisconnectHandler({ connections: connectionRepository(parts, config), logger: parts.logger });
}

export function wsDisconnectFunction(env: Env) {
  return composeWsDisconnect(createParts({ logger: new Logger({ serviceName: 'ws-disconnect' }) }), wsDisconnectConfigFromEnv(env));
}
