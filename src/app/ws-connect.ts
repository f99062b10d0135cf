/** WebSocket $connect: its config and its composition (the Connections table writes, the Graph table's followed celebrities). */
import { Logger } from '@aws-lambda-powertools/logger';
import type { Env } from '../env.js';
import { createConnectHandler } from '../handlers/websocket/routes.js';
import { parseEnv, required } from './config-parsing.js';
import { connectionRepository, createParts, graphRepository, type Parts } from './parts.js';
import { connectionsOf, connectionsShape, type ConnectionsConfig } from './shared-config.js';

export interface WsConnectConfig extends ConnectionsConfig {
  graphTable: string;
}

export function wsConnectConfigFromEnv(env: Env): WsConnectConfig {
  const parsed = parseEnv('ws-connect', { ...connectionsShape, GRAPH_TABLE: required }, env);
  return { ...connectionsOf(parsed), graphTable: parsed.GRAPH_TABLE };
}

export function composeWsConnect(parts: Parts, config: WsConnectConfig) {
  return createConnectHandler({ connections: connectionRepository(parts, config), celebrities: graphRepository(parts, config.graphTable), logger: parts.logger });
}

export function wsConnectFunction(env: Env) {
  return composeWsConnect(createParts({ logger: new Logger({ serviceName: 'ws-connect' }) }), wsConnectConfigFromEnv(env));
}
