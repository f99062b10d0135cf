/**
 * REST handlers of the inbox (API Gateway REST API proxy events). Split in two functions so the read
 * side cannot write: `createInboxReadHandler` (GET) and `createInboxWriteHandler` (POST read state).
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import { decodeCursor } from '../../core/cursor.js';
import type { InboxService } from '../../core/inbox-service.js';
import { identityFrom, json, parseJsonBody, restDispatcher, type RestHandler } from './http.js';
import { emptyBodySchema, inboxQuerySchema, markAllBodySchema, markOneReadPathSchema, noQuerySchema } from './schemas.js';

export interface InboxApiDeps {
  service: InboxService;
  cursorSecret: string;
  tenantClaim: string;
  /** Origins allowed to call from a browser (`*` or exact origins). */
  corsAllowOrigins: readonly string[];
  logger: Logger;
}

type Handler = RestHandler;

export function createInboxReadHandler(deps: InboxApiDeps): Handler {
  return restDispatcher(
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
  return restDispatcher(
    {
      'POST /notifications/read-all': async (event) => {
        const user = identityFrom(event, deps.tenantClaim);
        noQuerySchema.parse(event.queryStringParameters ?? {});
        const { upTo } = markAllBodySchema.parse(parseJsonBody(event));
        return json(200, await deps.service.markAllRead(user, upTo));
      },
      'POST /notifications/seen-all': async (event) => {
        const user = identityFrom(event, deps.tenantClaim);
        noQuerySchema.parse(event.queryStringParameters ?? {});
        const { upTo } = markAllBodySchema.parse(parseJsonBody(event));
        return json(200, await deps.service.markAllSeen(user, upTo));
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
