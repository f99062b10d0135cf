/**
 * Local stand-in for an API Gateway WebSocket API: a `ws` server that runs the same authorizer and
 * the same $connect / $disconnect / $default handlers with API Gateway's event shapes, and serves the
 * `@connections` management API (POST / GET / DELETE `/{stage}/@connections/{id}`, 410 for unknown
 * ids, 413 above 128 KB; callers on this machine only) on the same port, so delivery code and the real SDK client are identical
 * locally and on AWS.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import type { Logger } from '@aws-lambda-powertools/logger';
import { WebSocketServer, type WebSocket } from 'ws';
import { MAX_WEBSOCKET_MESSAGE_BYTES } from '../../core/live/live-messages.js';
import type { WebSocketAuthorizerContext, WebSocketEvent, WebSocketRequestContext, WebSocketResult } from '../../handlers/websocket/events.js';
import { createRequestListener, isAllowedHost, isCallerOnThisMachine, type LocalResponse, type LocalRoute } from '../http/router.js';

type Authorizer = (event: APIGatewayRequestAuthorizerEvent) => Promise<APIGatewayAuthorizerResult>;
type RouteHandler = (event: WebSocketEvent) => Promise<WebSocketResult>;

export interface WebSocketRouteHandlers {
  connect: RouteHandler;
  disconnect: RouteHandler;
  default: RouteHandler;
}

export interface LocalWebSocketGateway {
  /** `ws://host:port`: clients connect to `${endpoint}?token=<jwt>`. */
  endpoint: string;
  /** What `WS_MANAGEMENT_ENDPOINT` is on AWS: the SDK client's endpoint for `@connections`. */
  managementEndpoint: string;
  /** Installs the route handlers (they need the management endpoint, so they come after listen). */
  attach(handlers: WebSocketRouteHandlers): void;
  connectionIds(): string[];
  /** Test hook: the socket vanishes and $disconnect never runs (API Gateway runs it best effort only). */
  dropWithoutDisconnect(connectionId: string): boolean;
  close(): Promise<void>;
}

export interface WebSocketGatewayOptions {
  host: string;
  /** 0 picks a free port; the endpoints report the real one. */
  port: number;
  authorizer: Authorizer;
  logger: Logger;
}

const API_ID = 'localws';
const STAGE = 'local';

interface LocalConnection {
  id: string;
  socket?: WebSocket;
  /** Posts that arrive after $connect succeeded but before the upgrade completed. */
  pending: string[];
  connectedAt: number;
  lastActiveAt: number;
  sourceIp: string;
  userAgent: string;
  authorizer: WebSocketAuthorizerContext;
  silent: boolean;
}

function singleValueHeaders(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  return headers;
}

/** API Gateway connection ids look like `L0SM9cOFvHcCIhw=`. */
function newConnectionId(): string {
  return `${randomBytes(11).toString('base64url')}=`;
}

function refuseUpgrade(socket: Duplex, status: number, reason: string): void {
  socket.write(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: 0\r\n\r\n`);
  socket.destroy();
}

function apiError(status: number, errorType: string, message: string): LocalResponse {
  return { status, headers: { 'content-type': 'application/json', 'x-amzn-errortype': errorType }, body: JSON.stringify({ message }) };
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
}

export async function startWebSocketGateway(options: WebSocketGatewayOptions): Promise<LocalWebSocketGateway> {
  const { logger } = options;
  const connections = new Map<string, LocalConnection>();
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_WEBSOCKET_MESSAGE_BYTES });
  let handlers: WebSocketRouteHandlers | undefined;
  let closing = false;
  /** Handler invocations still running; close() waits for them (they use the runtime's DynamoDB). */
  const inFlight = new Set<Promise<WebSocketResult>>();
  let domainName = '';

  const requestContext = (connection: LocalConnection, routeKey: string, eventType: WebSocketRequestContext['eventType']): WebSocketRequestContext => {
    const now = Date.now();
    return {
      routeKey,
      eventType,
      messageId: randomUUID(),
      extendedRequestId: randomUUID(),
      requestTime: new Date(now).toUTCString(),
      messageDirection: 'IN',
      stage: STAGE,
      connectedAt: connection.connectedAt,
      requestTimeEpoch: now,
      requestId: randomUUID(),
      domainName,
      connectionId: connection.id,
      apiId: API_ID,
      authorizer: connection.authorizer,
    };
  };

  const invoke = async (route: keyof WebSocketRouteHandlers, event: WebSocketEvent): Promise<WebSocketResult> => {
    if (!handlers) return { statusCode: 503 };
    const invocation = handlers[route](event).catch((error: unknown): WebSocketResult => {
      logger.error(`websocket ${route} handler threw`, { error: error as Error });
      return { statusCode: 500 };
    });
    inFlight.add(invocation);
    try {
      return await invocation;
    } finally {
      inFlight.delete(invocation);
    }
  };

  const disconnected = (connection: LocalConnection) => {
    if (connections.get(connection.id) !== connection) return;
    connections.delete(connection.id);
    if (connection.silent || closing) return;
    void invoke('disconnect', { requestContext: requestContext(connection, '$disconnect', 'DISCONNECT'), isBase64Encoded: false });
  };

  const upgrade = async (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (!handlers || closing) return refuseUpgrade(socket, 503, 'Service Unavailable');
    // A page whose own name was rebound to this machine (DNS rebinding) names itself in Host.
    if (!isAllowedHost(request.headers.host, [options.host])) return refuseUpgrade(socket, 403, 'Forbidden');
    const url = new URL(request.url ?? '/', 'http://localhost');
    const headers = singleValueHeaders(request);
    const queryStringParameters = Object.fromEntries(url.searchParams.entries());
    let authorization: APIGatewayAuthorizerResult;
    try {
      authorization = await options.authorizer({
        type: 'REQUEST',
        methodArn: `arn:aws:execute-api:local:000000000000:${API_ID}/${STAGE}/$connect`,
        headers,
        queryStringParameters,
      } as APIGatewayRequestAuthorizerEvent);
    } catch {
      return refuseUpgrade(socket, 401, 'Unauthorized');
    }
    const now = Date.now();
    const connection: LocalConnection = {
      id: newConnectionId(),
      pending: [],
      connectedAt: now,
      lastActiveAt: now,
      sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
      userAgent: headers['user-agent'] ?? '',
      authorizer: { principalId: authorization.principalId, ...(authorization.context as Record<string, unknown> | undefined) },
      silent: false,
    };
    // Known to the management API from here on: a push racing the end of $connect is buffered.
    connections.set(connection.id, connection);
    const result = await invoke('connect', { requestContext: requestContext(connection, '$connect', 'CONNECT'), headers, queryStringParameters, isBase64Encoded: false });
    if (result.statusCode < 200 || result.statusCode >= 300) {
      connections.delete(connection.id);
      return refuseUpgrade(socket, result.statusCode === 401 || result.statusCode === 403 ? result.statusCode : 500, 'Forbidden');
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      if (connections.get(connection.id) !== connection) {
        ws.terminate();
        return;
      }
      connection.socket = ws;
      for (const payload of connection.pending.splice(0)) ws.send(payload);
      ws.on('message', (data, isBinary) => {
        connection.lastActiveAt = Date.now();
        const body = isBinary ? Buffer.from(data as Buffer).toString('base64') : data.toString();
        void invoke('default', { requestContext: requestContext(connection, '$default', 'MESSAGE'), body, isBase64Encoded: isBinary });
      });
      ws.on('close', () => disconnected(connection));
      ws.on('error', () => ws.terminate());
    });
  };

  const managementApi: LocalRoute = {
    async handle(request) {
      const match = request.url.pathname.match(/^(?:\/[^/]+)*\/@connections\/([^/]+)$/);
      if (!match) return undefined;
      // IAM-signed on AWS; locally, only this machine's own callers (the delivery functions) may push.
      if (!isCallerOnThisMachine(request, options.host)) return apiError(403, 'AccessDeniedException', '@connections answers callers on this machine only');
      let connectionId: string;
      try {
        connectionId = decodeURIComponent(match[1]!);
      } catch {
        return apiError(400, 'BadRequestException', 'connection id is not valid percent-encoding');
      }
      const connection = connections.get(connectionId);
      if (!connection) return apiError(410, 'GoneException', 'connection is gone');
      switch (request.method) {
        case 'POST': {
          if (request.body.length > MAX_WEBSOCKET_MESSAGE_BYTES) return apiError(413, 'PayloadTooLargeException', 'message exceeds 128 KB');
          const payload = request.body.toString('utf8');
          if (connection.socket) connection.socket.send(payload);
          else connection.pending.push(payload);
          return { status: 200 };
        }
        case 'GET':
          return {
            status: 200,
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({
              ConnectedAt: new Date(connection.connectedAt).toISOString(),
              LastActiveAt: new Date(connection.lastActiveAt).toISOString(),
              Identity: { SourceIp: connection.sourceIp, UserAgent: connection.userAgent },
            }),
          };
        case 'DELETE':
          // Like API Gateway: the socket closes and $disconnect runs.
          connection.socket?.close(1000, 'closed by the server');
          if (!connection.socket) disconnected(connection);
          return { status: 204 };
        default:
          return apiError(405, 'MethodNotAllowed', `${request.method} is not supported on @connections`);
      }
    },
  };

  const server = createServer(createRequestListener(() => [managementApi], (error) => logger.error('local @connections error', { error: error as Error }), { extraHostNames: [options.host] }));
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    upgrade(request, socket, head).catch((error: unknown) => {
      logger.error('websocket upgrade failed', { error: error as Error });
      refuseUpgrade(socket, 500, 'Internal Server Error');
    });
  });
  const port = await listen(server, options.port, options.host);
  domainName = `${options.host}:${port}`;

  return {
    endpoint: `ws://${options.host}:${port}`,
    managementEndpoint: `http://${options.host}:${port}/${STAGE}`,
    attach(routeHandlers) {
      handlers = routeHandlers;
    },
    connectionIds: () => [...connections.keys()],
    dropWithoutDisconnect(connectionId) {
      const connection = connections.get(connectionId);
      if (!connection) return false;
      connection.silent = true;
      connections.delete(connectionId);
      connection.socket?.terminate();
      return true;
    },
    async close() {
      closing = true;
      for (const connection of connections.values()) connection.socket?.terminate();
      connections.clear();
      await Promise.allSettled([...inFlight]);
      wss.close();
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    },
  };
}
