/**
 * The contract files on the local runtime (loopback callers only, like the dev routes):
 * `GET /openapi.json` (REST), `GET /schemas/events.json` (producer events), `GET /schemas/websocket.json`,
 * `GET /schemas/audit.json` (one line of the audit trail).
 * Generated from the zod schemas once, on first request.
 */
import { eventsJsonSchema, websocketJsonSchema } from '../api-docs/json-schemas.js';
import { openApiDocument } from '../api-docs/openapi.js';
import { deployedCatalog } from '../notifications/deployed.js';
import { auditRecordJsonSchema } from '../contract/audit-record.js';
import { isLoopbackCaller, type LocalRoute } from './http/router.js';

const documents: Record<string, () => unknown> = {
  '/openapi.json': openApiDocument,
  // The events of the catalog the runtime serves (a team's with CATALOG_ENTRY).
  '/schemas/events.json': () => eventsJsonSchema(deployedCatalog()),
  '/schemas/websocket.json': websocketJsonSchema,
  '/schemas/audit.json': auditRecordJsonSchema,
};

export function createContractFilesRoute(): LocalRoute {
  const generated = new Map<string, string>();
  return {
    async handle(request) {
      const build = documents[request.url.pathname];
      if (request.method !== 'GET' || !build || !isLoopbackCaller(request)) return undefined;
      const body = generated.get(request.url.pathname) ?? JSON.stringify(build(), null, 2);
      generated.set(request.url.pathname, body);
      return { status: 200, headers: { 'content-type': 'application/json', 'cache-control': 'no-store' }, body };
    },
  };
}
