/** API Gateway WebSocket proxy events (Lambda REQUEST authorizer on $connect) and their parsing. */
import type { APIGatewayEventWebsocketRequestContextV2, APIGatewayProxyWebsocketEventV2WithRequestContext } from 'aws-lambda';
import * as z from 'zod';
import { CONNECTION_ID_PATTERN, IDENTIFIER_PATTERN } from '../../core/model/keys.js';

/** The authorizer's context, flattened into `requestContext.authorizer` by API Gateway on every route. */
export interface WebSocketAuthorizerContext {
  principalId?: string;
  tenantId?: string;
  userId?: string;
  [key: string]: unknown;
}

export type WebSocketRequestContext = APIGatewayEventWebsocketRequestContextV2 & { authorizer?: WebSocketAuthorizerContext | null };

export type WebSocketEvent = APIGatewayProxyWebsocketEventV2WithRequestContext<WebSocketRequestContext> & {
  headers?: Record<string, string | undefined>;
};

export interface WebSocketResult {
  statusCode: number;
  body?: string;
}

const connectionId = z.string().regex(CONNECTION_ID_PATTERN);
const identifier = z.string().regex(IDENTIFIER_PATTERN);

/** $connect: the connection and the identity the authorizer verified (never the query or headers). */
export const connectEventSchema = z.object({
  requestContext: z.object({
    connectionId,
    authorizer: z.object({ tenantId: identifier, userId: identifier }),
  }),
});

export const connectionEventSchema = z.object({ requestContext: z.object({ connectionId }) });
