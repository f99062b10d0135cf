/** Composition of WebSocket $connect: the Connections table (writes) and the Graph table (followed celebrities). */
import { Logger } from '@aws-lambda-powertools/logger';
import { createConnectHandler } from '../handlers/websocket/routes.js';
import { wsConnectConfigFromEnv, type Env, type WsConnectConfig } from './config.js';
import { connectionRepository, createParts, graphRepository, type Parts } from './parts.js';

export function composeWsConnect(parts: Parts, config: WsConnectConfig) {
  return createConnectHandler({ connections: connectionRepository(parts, config), celebrities: graphRepository(parts, config.graphTable), logger: parts.logger });
}

export function wsConnectFunction(env: Env) {
  return composeWsConnect(createParts({ logger: new Logger({ serviceName: 'ws-connect' }) }), wsConnectConfigFromEnv(env));
}
