/**
 * REST handlers of the inbox (API Gateway REST API proxy events). Split in two functions so the read
 * side cannot write: `createInboxReadHandler` (GET) and `createInboxWriteHandler` (POST read state).
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { Logger } from '@aws-lambda-powertools/logger';
import { decodeCursor } from '../../core/cursor.js';
import type { InboxService } from '../../core/inbox-service.js';
import { errorBody, errorResponse, identityFrom, json, parseJsonBody, withCors } from './http.js';
import { emptyBodySchema, inboxQuerySchema, markOneReadPathSchema, noQuerySchema } from './schemas.js';

export interface InboxApiDeps {
  service: InboxService;
  cursorSecret: string;
  tenantClaim: string;
  /** Origins allowed to call from a browser (`*` or exact origins). */
  corsAllowOrigins: readonly string[];
  logger: Logger;
}

type Handler = (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>;
type Route = (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>;

function routeKey(event: APIGatewayProxyEvent): string {
  return `${event.httpMethod} ${event.resource}`;
}

function dispatch(routes: Record<string, Route>, deps: InboxApiDeps): Handler {
  const answer = async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
    const route = routes[routeKey(event)];
    if (!route) return json(404, errorBody('not_found', `no route for ${event.httpMethod} ${event.path}`));
    try {
      return await route(event);
    } catch (error) {
      return errorResponse(error, deps.logger);
    }
  };
  return async (event) => withCors(await answer(event), event, deps.corsAllowOrigins);
}

export function createInboxReadHandler(deps: InboxApiDeps): Handler {
  return dispatch(
    {
      'GET /notifications': async (event) => {
        const user = identityFrom(event, deps.tenantClaim);
        const query = inboxQuerySchema.parse(event.queryStringParameters ?? {});
        const cursor = query.cursor === undefined ? undefined : decodeCursor(query.cursor, deps.cursorSecret);
        const page = await deps.service.listPage(user, { limit: query.limit, cursor, since: query.since, type: query.type });
        return json(200, page);
      },
      'GET /notifications/counts': async (event) => {
        const user = identityFrom(event, deps.tenantClaim);
        noQuerySchema.parse(event.queryStringParameters ?? {});
        return json(200, await deps.service.counts(user));
      },
    },
    deps,
  );
}

export function createInboxWriteHandler(deps: InboxApiDeps): Handler {
  return dispatch(
    {
      'POST /notifications/read-all': async (event) => {
        const user = identityFrom(event, deps.tenantClaim);
        noQuerySchema.parse(event.queryStringParameters ?? {});
        emptyBodySchema.parse(parseJsonBody(event));
        return json(200, await deps.service.markAllRead(user));
      },
      'POST /notifications/seen-all': async (event) => {
        const user = identityFrom(event, deps.tenantClaim);
        noQuerySchema.parse(event.queryStringParameters ?? {});
        emptyBodySchema.parse(parseJsonBody(event));
        return json(200, await deps.service.markAllSeen(user));
      },
      'POST /notifications/{id}/read': async (event) => {
        const user = identityFrom(event, deps.tenantClaim);
        const { id } = markOneReadPathSchema.parse(event.pathParameters ?? {});
        noQuerySchema.parse(event.queryStringParameters ?? {});
        emptyBodySchema.parse(parseJsonBody(event));
        await deps.service.markOneRead(user, id);
        return json(204);
      },
    },
    deps,
  );
}
