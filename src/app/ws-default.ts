/** The WebSocket $default route: its config and its composition (the management API only: it answers the caller). */
import { Logger } from '@aws-lambda-powertools/logger';
import type { Env } from '../env.js';
import { createDefaultHandler } from '../handlers/websocket/routes.js';
import { parseEnv, url } from './config-parsing.js';
import { connectionPusher } from './parts-live.js';
import { createParts, type Parts } from './parts.js';

export interface WsDefaultConfig {
  managementEndpoint: string;
}

export function wsDefaultConfigFromEnv(env: Env): WsDefaultConfig {
  return { managementEndpoint: parseEnv('ws-default', { WS_MANAGEMENT_ENDPOINT: url }, env).WS_MANAGEMENT_ENDPOINT };
}

export function composeWsDefault(parts: Parts, config: WsDefaultConfig) {
  return createDefaultHandler({ pusher: connectionPusher(parts, config.managementEndpoint), logger: parts.logger });
}

export function wsDefaultFunction(env: Env) {
  return composeWsDefault(createParts({ logger: new Logger({ serviceName: 'ws-default' }) }), wsDefaultConfigFromEnv(env));
}
