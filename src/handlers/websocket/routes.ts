/**
 * The WebSocket API routes: $connect registers an authorized connection, $disconnect removes it,
 * $default answers `{"action":"ping"}` with `{"type":"pong"}` through the management API.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import type { ConnectionRepository } from '../../adapters/dynamo/connection-repository.js';
import type { ConnectionPusher } from '../../core/ports/live.js';
import { PONG_PAYLOAD, encodeLiveMessage } from '../../core/live/live-messages.js';
import type { FollowedCelebritiesReader } from '../../core/ports/inbox.js';
import { clientMessageSchema } from '../../contract/client-messages.js';
import { connectEventSchema, connectionEventSchema, type WebSocketEvent, type WebSocketResult } from './events.js';

export interface WebSocketRouteDeps {
  connections: Pick<ConnectionRepository, 'registerConnection' | 'removeConnectionById'>;
  celebrities: FollowedCelebritiesReader;
  pusher: ConnectionPusher;
  logger: Logger;
}

const OK: WebSocketResult = { statusCode: 200 };

export function createConnectHandler(deps: Pick<WebSocketRouteDeps, 'connections' | 'celebrities' | 'logger'>) {
  return async (event: WebSocketEvent): Promise<WebSocketResult> => {
    const parsed = connectEventSchema.safeParse(event);
    // Without a verified identity from the authorizer nothing is registered.
    if (!parsed.success) {
      deps.logger.warn('connect without authorizer identity', { issues: parsed.error.issues.map((issue) => issue.path.join('.')) });
      return { statusCode: 401 };
    }
    const { connectionId, authorizer } = parsed.data.requestContext;
    try {
      const celebrities = await deps.celebrities.listFollowedCelebrities(authorizer);
      await deps.connections.registerConnection({ ...authorizer, connectionId, celebrityIds: celebrities.map((celebrity) => celebrity.celebrityId) });
      return OK;
    } catch (error) {
      deps.logger.error('connect registration failed', { connectionId, error: error as Error });
      return { statusCode: 500 };
    }
  };
}

export function createDisconnectHandler(deps: Pick<WebSocketRouteDeps, 'connections' | 'logger'>) {
  return async (event: WebSocketEvent): Promise<WebSocketResult> => {
    const parsed = connectionEventSchema.safeParse(event);
    if (!parsed.success) return { statusCode: 400 };
    const { connectionId } = parsed.data.requestContext;
    try {
      await deps.connections.removeConnectionById(connectionId);
      return OK;
    } catch (error) {
      // $disconnect is best effort on API Gateway too; TTL and the next 410 clean up what is left.
      deps.logger.error('disconnect cleanup failed', { connectionId, error: error as Error });
      return { statusCode: 500 };
    }
  };
}

export function createDefaultHandler(deps: Pick<WebSocketRouteDeps, 'pusher' | 'logger'>) {
  return async (event: WebSocketEvent): Promise<WebSocketResult> => {
    const parsed = connectionEventSchema.safeParse(event);
    if (!parsed.success) return { statusCode: 400 };
    const { connectionId } = parsed.data.requestContext;
    let message: unknown;
    try {
      message = JSON.parse(event.body ?? '');
    } catch {
      message = undefined;
    }
    const payload = clientMessageSchema.safeParse(message).success
      ? PONG_PAYLOAD
      : encodeLiveMessage({ type: 'error', code: 'unknown_action', message: 'supported: {"action":"ping"}' });
    try {
      await deps.pusher.post(connectionId, payload);
      return OK;
    } catch (error) {
      deps.logger.error('reply failed', { connectionId, error: error as Error });
      return { statusCode: 500 };
    }
  };
}
