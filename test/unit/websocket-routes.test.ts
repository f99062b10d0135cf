import { describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { Logger } from '@aws-lambda-powertools/logger';
import { ApiGatewayManagementApiClient, GoneException, PostToConnectionCommand } from '@aws-sdk/client-apigatewaymanagementapi';
import { ApiGatewayConnectionPusher } from '../../src/adapters/connection-pusher.js';
import type { ConnectionRegistration } from '../../src/adapters/dynamo/connection-repository.js';
import type { FollowedCelebrity } from '../../src/core/model/followed-pack.js';
import { createConnectHandler, createDefaultHandler, createDisconnectHandler } from '../../src/handlers/websocket/routes.js';
import type { WebSocketAuthorizerContext, WebSocketEvent } from '../../src/handlers/websocket/events.js';
import { FakePusher } from '../support/live-fakes.js';
import type { UserRef } from '../../src/core/model/user.js';

const logger = new Logger({ logLevel: 'SILENT' });

function aWebSocketEvent(routeKey: '$connect' | '$disconnect' | '$default', options: { connectionId?: string; authorizer?: WebSocketAuthorizerContext | null; body?: string } = {}): WebSocketEvent {
  const now = Date.now();
  return {
    requestContext: {
      routeKey,
      eventType: routeKey === '$connect' ? 'CONNECT' : routeKey === '$disconnect' ? 'DISCONNECT' : 'MESSAGE',
      messageId: 'm-1',
      extendedRequestId: 'x-1',
      requestTime: new Date(now).toUTCString(),
      messageDirection: 'IN',
      stage: 'prod',
      connectedAt: now,
      requestTimeEpoch: now,
      requestId: 'r-1',
      domainName: 'abc.execute-api.eu-west-1.amazonaws.com',
      connectionId: options.connectionId ?? 'L0SM9cOFvHcCIhw=',
      apiId: 'abc',
      authorizer: options.authorizer === undefined ? { principalId: 'acme/alice', tenantId: 'acme', userId: 'alice' } : options.authorizer,
    },
    body: options.body,
    isBase64Encoded: false,
  };
}

class FakeConnections {
  readonly registered: ConnectionRegistration[] = [];
  readonly removed: string[] = [];
  async registerConnection(registration: ConnectionRegistration): Promise<void> {
    this.registered.push(registration);
  }
  async removeConnectionById(connectionId: string): Promise<undefined> {
    this.removed.push(connectionId);
    return undefined;
  }
}

const celebrities = { listFollowedCelebrities: async (_user: UserRef): Promise<FollowedCelebrity[]> => [{ celebrityId: 'star', followedAtMs: Date.parse('2026-01-01T00:00:00.000Z') }] };

describe('$connect', () => {
  it('registers the connection for the authorizer identity with its celebrity subscriptions', async () => {
    const connections = new FakeConnections();
    const handler = createConnectHandler({ connections, celebrities, logger });

    const result = await handler(aWebSocketEvent('$connect'));

    expect(result.statusCode).toBe(200);
    expect(connections.registered).toEqual([{ tenantId: 'acme', userId: 'alice', connectionId: 'L0SM9cOFvHcCIhw=', celebrityIds: ['star'] }]);
  });

  it('registers nothing without an authorizer identity', async () => {
    const connections = new FakeConnections();
    const handler = createConnectHandler({ connections, celebrities, logger });

    const result = await handler(aWebSocketEvent('$connect', { authorizer: null }));

    expect(result.statusCode).toBe(401);
    expect(connections.registered).toEqual([]);
  });
});

describe('$disconnect and $default', () => {
  it('$disconnect removes the connection by id', async () => {
    const connections = new FakeConnections();

    await createDisconnectHandler({ connections, logger })(aWebSocketEvent('$disconnect'));

    expect(connections.removed).toEqual(['L0SM9cOFvHcCIhw=']);
  });

  it('answers ping with pong and anything else with an error message', async () => {
    const pusher = new FakePusher();
    const handler = createDefaultHandler({ pusher, logger });

    await handler(aWebSocketEvent('$default', { body: '{"action":"ping"}' }));
    await handler(aWebSocketEvent('$default', { body: '{"action":"subscribe"}' }));

    expect(pusher.posts.map((post) => post.message.type)).toEqual(['pong', 'error']);
  });
});

describe('ApiGatewayConnectionPusher', () => {
  it('sends PostToConnection with the connection id and the UTF-8 payload', async () => {
    // Prepare
    const management = mockClient(ApiGatewayManagementApiClient);
    management.on(PostToConnectionCommand).resolves({});
    const pusher = new ApiGatewayConnectionPusher(new ApiGatewayManagementApiClient({ endpoint: 'https://abc.execute-api.eu-west-1.amazonaws.com/prod', region: 'eu-west-1' }));

    // Act
    const outcome = await pusher.post('L0SM9cOFvHcCIhw=', '{"type":"pong"}');

    // Assess
    expect(outcome).toBe('sent');
    const input = management.commandCalls(PostToConnectionCommand)[0]!.args[0].input;
    expect(input.ConnectionId).toBe('L0SM9cOFvHcCIhw=');
    expect(new TextDecoder().decode(input.Data as Uint8Array)).toBe('{"type":"pong"}');
    management.restore();
  });

  it('maps 410 Gone to "gone" and rethrows other errors', async () => {
    const management = mockClient(ApiGatewayManagementApiClient);
    management.on(PostToConnectionCommand, { ConnectionId: 'gone' }).rejects(new GoneException({ message: 'gone', $metadata: { httpStatusCode: 410 } }));
    management.on(PostToConnectionCommand, { ConnectionId: 'busy' }).rejects(new Error('throttled'));
    const pusher = new ApiGatewayConnectionPusher(new ApiGatewayManagementApiClient({ endpoint: 'https://abc.execute-api.eu-west-1.amazonaws.com/prod', region: 'eu-west-1' }));

    await expect(pusher.post('gone', '{}')).resolves.toBe('gone');
    await expect(pusher.post('busy', '{}')).rejects.toThrow('throttled');
    management.restore();
  });
});
