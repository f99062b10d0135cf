/**
 * REST handlers of the inbox (API Gateway REST API proxy events). Split in two functions so the read
 * side cannot write: `createInboxReadHandler` (GET) and `createInboxWriteHandler` (POST read state
 * and the per-item actions).
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { decodeCursor } from '../../core/read/cursor.js';
import type { InboxActions, ItemAction } from '../../core/actions/inbox-actions.js';
import { typesOfTab, typesOutsideTab, type CatalogEntry } from '../../core/read/inbox-filters.js';
import type { InboxService } from '../../core/read/inbox-service.js';
import { identityFrom, json, parseJsonBody, restDispatcher, type RestHandler } from './http.js';
import { bulkBodySchema, countsQuerySchema, emptyBodySchema, inboxQuerySchema, markAllBodySchema, markOneReadPathSchema, noQuerySchema, snoozeBodySchema } from '../../contract/rest-schemas.js';

export interface InboxApiDeps {
  service: InboxService;
  cursorSecret: string;
  tenantClaim: string;
  /** Origins allowed to call from a browser (`*` or exact origins). */
  corsAllowOrigins: readonly string[];
  logger: Logger;
  /** The catalog's categories and tags (filters and tabs); none: category/tags match nothing. */
  catalog?: readonly CatalogEntry[];
}

export interface InboxWriteApiDeps extends InboxApiDeps {
  actions: InboxActions;
}

type Handler = RestHandler;

export function createInboxReadHandler(deps: InboxApiDeps): Handler {
  const catalog = deps.catalog ?? [];
  return restDispatcher(
    {
      'GET /notifications': async (event) => {
        const user = identityFrom(event, deps.tenantClaim);
        const query = inboxQuerySchema.parse(event.queryStringParameters ?? {});
        const cursor = query.cursor === undefined ? undefined : decodeCursor(query.cursor, deps.cursorSecret);
        const types = typesOfTab(catalog, { types: query.type, category: query.category, tags: query.tags });
        const filter = {
          ...(query.read !== undefined ? { read: query.read } : {}),
          ...(query.archived !== undefined ? { archived: query.archived } : {}),
          ...(types !== undefined ? { types } : {}),
        };
        // No type of the catalog matches the tab: nothing to read.
        if (types?.length === 0) return json(200, { items: [], nextCursor: null });
        const page = await deps.service.listPage(user, { limit: query.limit, cursor, since: query.since, filter });
        return json(200, page);
      },
      'GET /notifications/counts': async (event) => {
        const user = identityFrom(event, deps.tenantClaim);
        const query = countsQuerySchema.parse(event.queryStringParameters ?? {});
        const excludeTypes = typesOutsideTab(catalog, { types: query.type, category: query.category });
        return json(200, await deps.service.counts(user, excludeTypes === undefined ? {} : { excludeTypes }));
      },
    },
    deps,
  );
}

export function createInboxWriteHandler(deps: InboxWriteApiDeps): Handler {
  const oneAction = (action: ItemAction) => async (event: APIGatewayProxyEvent) => {
    const user = identityFrom(event, deps.tenantClaim);
    const { id } = markOneReadPathSchema.parse(event.pathParameters ?? {});
    noQuerySchema.parse(event.queryStringParameters ?? {});
    emptyBodySchema.parse(parseJsonBody(event));
    await deps.actions.changeOne(user, id, action);
    return json(204);
  };
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
      'POST /notifications/{id}/unread': oneAction('unread'),
      'POST /notifications/{id}/seen': oneAction('seen'),
      'POST /notifications/{id}/archive': oneAction('archive'),
      'POST /notifications/{id}/unarchive': oneAction('unarchive'),
      'DELETE /notifications/{id}': oneAction('delete'),
      'POST /notifications/{id}/snooze': async (event) => {
        const user = identityFrom(event, deps.tenantClaim);
        const { id } = markOneReadPathSchema.parse(event.pathParameters ?? {});
        noQuerySchema.parse(event.queryStringParameters ?? {});
        const { until } = snoozeBodySchema.parse(parseJsonBody(event));
        return json(200, await deps.actions.snooze(user, id, until));
      },
      'POST /notifications/archive-read': async (event) => {
        const user = identityFrom(event, deps.tenantClaim);
        noQuerySchema.parse(event.queryStringParameters ?? {});
        emptyBodySchema.parse(parseJsonBody(event));
        return json(200, await deps.actions.archiveAllRead(user));
      },
      'POST /notifications/bulk': async (event) => {
        const user = identityFrom(event, deps.tenantClaim);
        noQuerySchema.parse(event.queryStringParameters ?? {});
        const { action, ids } = bulkBodySchema.parse(parseJsonBody(event));
        return json(200, await deps.actions.bulk(user, ids, action));
      },
    },
    deps,
  );
}
