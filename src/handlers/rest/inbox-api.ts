/**
 * REST handlers of the inbox (API Gateway REST API proxy events). Split in two functions so the read
 * side cannot write: `createInboxReadHandler` (GET: pages and counts) and `createInboxWriteHandler`
 * (POST: the read and seen marks, the per-item and bulk actions).
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { decodeCursor } from '../../core/read/cursor.js';
import type { InboxActions, ItemAction } from '../../core/actions/inbox-actions.js';
import { typesOfTab, typesOutsideTab, type CatalogEntry } from '../../core/read/inbox-filters.js';
import type { InboxReadService } from '../../core/read/inbox-read-service.js';
import type { ReadMarks } from '../../core/actions/read-marks.js';
import { identityFrom, json, parseJsonBody, restDispatcher, type RestHandler } from './http.js';
import { bulkBodySchema, countsQuerySchema, emptyBodySchema, inboxQuerySchema, markAllBodySchema, markOneReadPathSchema, noQuerySchema, snoozeBodySchema } from '../../contract/rest-schemas.js';

interface InboxApiDeps {
  tenantClaim: string;
  /** Origins allowed to call from a browser (`*` or exact origins). */
  corsAllowOrigins: readonly string[];
  logger: Logger;
}

export interface InboxReadApiDeps extends InboxApiDeps {
  reads: Pick<InboxReadService, 'listPage' | 'counts'>;
  cursorSecret: string;
  /** The catalog's categories and tags (filters and tabs); none: category/tags match nothing. */
  catalog?: readonly CatalogEntry[];
}

export interface InboxWriteApiDeps extends InboxApiDeps {
  marks: Pick<ReadMarks, 'markAllRead' | 'markAllSeen' | 'markOneRead'>;
  actions: Pick<InboxActions, 'changeOne' | 'snooze' | 'archiveAllRead' | 'bulk'>;
}

type Handler = RestHandler;

export function createInboxReadHandler(deps: InboxReadApiDeps): Handler {
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
        const page = await deps.reads.listPage(user, { limit: query.limit, cursor, since: query.since, filter });
        return json(200, page);
      },
      'GET /notifications/counts': async (event) => {
        const user = identityFrom(event, deps.tenantClaim);
        const query = countsQuerySchema.parse(event.queryStringParameters ?? {});
        const excludeTypes = typesOutsideTab(catalog, { types: query.type, category: query.category });
        return json(200, await deps.reads.counts(user, excludeTypes === undefined ? {} : { excludeTypes }));
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
        return json(200, await deps.marks.markAllRead(user, upTo));
      },
      'POST /notifications/seen-all': async (event) => {
        const user = identityFrom(event, deps.tenantClaim);
        noQuerySchema.parse(event.queryStringParameters ?? {});
        const { upTo } = markAllBodySchema.parse(parseJsonBody(event));
        return json(200, await deps.marks.markAllSeen(user, upTo));
      },
      'POST /notifications/{id}/read': async (event) => {
        const user = identityFrom(event, deps.tenantClaim);
        const { id } = markOneReadPathSchema.parse(event.pathParameters ?? {});
        noQuerySchema.parse(event.queryStringParameters ?? {});
        emptyBodySchema.parse(parseJsonBody(event));
        await deps.marks.markOneRead(user, id);
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
