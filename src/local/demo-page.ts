/**
 * The demo inbox page of the local runtime (`GET /`) and the DEV-ONLY helper routes it needs.
 * None of this exists on AWS: the CDK app never serves it.
 *
 * - `GET /`, `GET /demo/app.js`, `GET /demo/styles.css`: the page; `app.js` is bundled from
 *   `src/local/demo/app.ts` (which imports `serverless-notifications/client` as users do; tsconfig.json
 *   `paths` resolves it to that entry's source) with esbuild on first request, so nothing
 *   generated is committed and a runtime that never serves the page never pays for the build.
 * - `POST /dev/token` `{"tenantId","userId"}` -> `{"token","expiresAt"}`: a short-lived local JWT,
 *   like `npm run token`, with a verified demo address and phone number (`demoPhoneNumber`). Answered only to loopback callers that name a loopback host (no DNS
 *   rebinding): anyone who can call it can be anyone. A page of another origin (an app's dev server)
 *   may read the answer when `CORS_ALLOW_ORIGINS` names that origin, or, with the default `*`, when
 *   the page itself is on a loopback host (`http://localhost:5173`): never a site on the internet.
 * - `GET /dev/catalog?tenant=&user=&actor=` (loopback callers only too): the catalog (`src/notifications`) with a sample event of
 *   each type for that tenant, user and actor, so the page lists no type of its own.
 *
 * The page publishes with `fetch` to the local EventBridge endpoint (`POST /`, AWS JSON 1.1
 * `AWSEvents.PutEvents`), the same path a producer's `PutEventsCommand` takes.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import * as z from 'zod';
import { IDENTIFIER_PATTERN } from '../core/model/keys.js';
import { deployedCatalog } from '../notifications/deployed.js';
import type { NotificationType } from '../core/ports/notification-type.js';
import type { LocalEndpoints } from './endpoints.js';
import { isLoopbackCaller, type LocalRequest, type LocalResponse, type LocalRoute } from './http/router.js';
import type { LocalSecrets } from './signing-key.js';

/**
 * A demo user's verified phone number: fictional (+1 555), one per tenant and user (from a digest of
 * both, so two demo users share one about once in 10 million), the number their demo phone shows.
 */
export function demoPhoneNumber(tenantId: string, userId: string): string {
  const digits = BigInt(`0x${createHash('sha256').update(`${tenantId}\u0000${userId}`).digest('hex').slice(0, 13)}`) % 10_000_000n;
  return `+1555${String(digits).padStart(7, '0')}`;
}

/** Dev tokens are short-lived so the page exercises the client's token refresh. */
export const DEV_TOKEN_TTL_SECONDS = 15 * 60;

export interface DemoPageOptions {
  secrets: LocalSecrets;
  /** Default: the catalog the runtime serves (the package's, or `CATALOG_ENTRY`'s). */
  catalog?: readonly NotificationType[];
  /** The REST API's CORS origins (`CORS_ALLOW_ORIGINS`); the dev routes answer the named ones, or loopback pages with `*`. Default `['*']`. */
  corsAllowOrigins?: readonly string[];
  /** Read per request: the ports are known only once the servers listen. */
  endpoints(): LocalEndpoints;
}

const DEMO_DIR = fileURLToPath(new URL('./demo/', import.meta.url));
/** Its `paths` map the package's entry names to their sources (test/unit/package-exports.test.ts keeps them in step with `exports`). */
const TSCONFIG = fileURLToPath(new URL('../../tsconfig.json', import.meta.url));

const tokenRequestSchema = z
  .object({ tenantId: z.string().regex(IDENTIFIER_PATTERN), userId: z.string().regex(IDENTIFIER_PATTERN), ttlSeconds: z.number().int().min(5).max(3600).optional() })
  .strict();

function json(status: number, body: unknown): LocalResponse {
  return { status, headers: { 'content-type': 'application/json', 'cache-control': 'no-store' }, body: JSON.stringify(body) };
}

const LOOPBACK_PAGE_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The CORS headers of a dev route for the page at `origin`: only an origin named in the setting, or a loopback page when it is `*`. */
export function devRouteCorsHeaders(origin: string | undefined, allowed: readonly string[]): Record<string, string> {
  if (!origin) return {};
  let loopbackPage = false;
  try {
    const url = new URL(origin);
    loopbackPage = (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_PAGE_HOSTS.has(url.hostname);
  } catch {
    return {};
  }
  if (!allowed.includes(origin) && !(allowed.includes('*') && loopbackPage)) return {};
  return { 'access-control-allow-origin': origin, vary: 'Origin' };
}

function escapeForScriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

/** esbuild is a devDependency: imported only when the page is first asked for. */
async function bundleApp(): Promise<string> {
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [`${DEMO_DIR}app.ts`],
    tsconfig: TSCONFIG,
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2020',
    minify: false,
    sourcemap: 'inline',
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

/** A plausible value for a field of a type's data schema (JSON Schema of its zod schema). */
function sampleValue(field: string, schema: Record<string, unknown>, context: SampleContext, type: NotificationType): unknown {
  if (field === 'followeeId') return type.graphEffect === 'follow' ? context.userId : context.actorId;
  // Action links: a safe https link; a retraction names a real type (its eventId is edited in the panel).
  if (field === 'url') return `https://example.com/posts/${Math.random().toString(36).slice(2, 8)}`;
  if (type.retraction && field === 'type') return 'mention.created';
  switch (schema.type) {
    case 'number':
    case 'integer':
      return 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'string': {
      const max = typeof schema.maxLength === 'number' ? schema.maxLength : 200;
      const text = field.endsWith('Id')
        ? `${field.slice(0, -2)}-${Math.random().toString(36).slice(2, 8)}`
        : field === 'excerpt'
          ? `Hey @${context.userId}, could you take a look at this?`
          : field === 'title'
            ? 'Release notes: faster inbox, fewer duplicates'
            : `sample ${field}`;
      return text.slice(0, max);
    }
    default:
      return {};
  }
}

interface SampleContext {
  tenantId: string;
  userId: string;
  actorId: string;
}

interface SampleEvent {
  detailType: string;
  detail: Record<string, unknown>;
}

function sampleData(type: NotificationType, context: SampleContext): Record<string, unknown> {
  const jsonSchema = z.toJSONSchema(type.dataSchema, { unrepresentable: 'any' }) as { properties?: Record<string, Record<string, unknown>> };
  const data: Record<string, unknown> = {};
  for (const [field, schema] of Object.entries(jsonSchema.properties ?? {})) data[field] = sampleValue(field, schema, context, type);
  return data;
}

/** A sample envelope (CONTRACT.md, Events) that reaches `userId` (or changes the graph around them). */
function sampleEvent(type: NotificationType, context: SampleContext): SampleEvent {
  const actorIsUser = type.graphEffect === 'unfollow';
  const actorId = actorIsUser ? context.userId : context.actorId;
  const detail: Record<string, unknown> = {
    id: 'replaced-on-publish',
    tenantId: context.tenantId,
    actor: { id: actorId, name: actorId.charAt(0).toUpperCase() + actorId.slice(1) },
    ...(type.audience === 'recipients' ? { recipients: [context.userId] } : {}),
    data: sampleData(type, context),
  };
  return { detailType: type.detailType, detail };
}

/** The event that makes `userId` follow `actorId` (needed before a followers-of-actor type reaches them). */
function followActorEvent(catalog: readonly NotificationType[], context: SampleContext): SampleEvent | undefined {
  const follow = catalog.find((type) => type.graphEffect === 'follow');
  if (!follow) return undefined;
  const detail: Record<string, unknown> = {
    id: 'replaced-on-publish',
    tenantId: context.tenantId,
    actor: { id: context.userId },
    recipients: [context.actorId],
    data: sampleData(follow, { ...context, userId: context.actorId, actorId: context.userId }),
  };
  return { detailType: follow.detailType, detail };
}

export function describeCatalog(catalog: readonly NotificationType[], context: SampleContext) {
  return {
    types: catalog.map((type) => ({
      detailType: type.detailType,
      defaultPriority: type.defaultPriority,
      audience: type.audience,
      digestible: type.digestible,
      graphEffect: type.graphEffect ?? null,
      sample: sampleEvent(type, context),
      prerequisite: type.audience === 'followersOfActor' ? (followActorEvent(catalog, context) ?? null) : null,
    })),
  };
}

function pageHtml(template: string, options: DemoPageOptions): string {
  const endpoints = options.endpoints();
  const config = { ws: endpoints.ws, eventBusName: endpoints.eventBusName };
  return template.replace('{{CONFIG}}', escapeForScriptJson(config));
}

export function createDemoPageRoute(options: DemoPageOptions): LocalRoute {
  let app: Promise<string> | undefined;
  const staticFile = (name: string) => readFile(`${DEMO_DIR}${name}`, 'utf8');

  const routes: Record<string, (request: LocalRequest) => Promise<LocalResponse>> = {
    'GET /': async () => ({
      status: 200,
      headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' },
      body: pageHtml(await staticFile('index.html'), options),
    }),
    'GET /demo/styles.css': async () => ({
      status: 200,
      headers: { 'content-type': 'text/css; charset=utf-8', 'cache-control': 'no-store' },
      body: await staticFile('styles.css'),
    }),
    'GET /demo/app.js': async () => {
      app ??= bundleApp().catch((error: unknown) => {
        app = undefined;
        throw error;
      });
      return { status: 200, headers: { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-store' }, body: await app };
    },
    'GET /dev/catalog': async (request) => {
      if (!isLoopbackCaller(request)) return json(403, { error: { code: 'forbidden', message: 'dev routes answer loopback callers on a loopback host name only' } });
      const query = request.url.searchParams;
      const context = { tenantId: query.get('tenant') || 'acme', userId: query.get('user') || 'alice', actorId: query.get('actor') || 'bob' };
      return json(200, describeCatalog(options.catalog ?? deployedCatalog(), context));
    },
    'POST /dev/token': async (request) => {
      if (!isLoopbackCaller(request)) return json(403, { error: { code: 'forbidden', message: 'dev tokens are issued to loopback callers on a loopback host name only' } });
      let body: unknown;
      try {
        body = JSON.parse(request.body.toString('utf8') || '{}');
      } catch {
        return json(400, { error: { code: 'bad_request', message: 'body must be JSON' } });
      }
      const parsed = tokenRequestSchema.safeParse(body);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        return json(400, { error: { code: 'bad_request', message: `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}` } });
      }
      const ttlSeconds = parsed.data.ttlSeconds ?? DEV_TOKEN_TTL_SECONDS;
      const expiresAt = Math.floor(Date.now() / 1000) + ttlSeconds;
      // A verified demo address and phone number, so the demo can turn email and texts on (`PUT /email-address`, `PUT /sms`) and show the mailbox and the phone.
      const email = `${parsed.data.userId.replace(/[^A-Za-z0-9._+-]/g, '_').slice(0, 64)}@example.test`;
      const token = await options.secrets.issueToken({ tenantId: parsed.data.tenantId, userId: parsed.data.userId, expiresAt, email, phoneNumber: demoPhoneNumber(parsed.data.tenantId, parsed.data.userId) });
      return json(200, { token, expiresAt: new Date(expiresAt * 1000).toISOString() });
    },
  };

  const allowed = options.corsAllowOrigins ?? ['*'];
  return {
    async handle(request) {
      const origin = typeof request.headers.origin === 'string' ? request.headers.origin : undefined;
      const isDevRoute = request.url.pathname.startsWith('/dev/');
      // Preflight of a cross-origin fetch (JSON body): answered for the allowed pages only.
      if (request.method === 'OPTIONS' && isDevRoute && routes[`POST ${request.url.pathname}`] !== undefined) {
        const cors = devRouteCorsHeaders(origin, allowed);
        return { status: 204, headers: cors['access-control-allow-origin'] ? { ...cors, 'access-control-allow-methods': 'GET, POST', 'access-control-allow-headers': 'content-type', 'access-control-max-age': '600' } : {}, body: '' };
      }
      const route = routes[`${request.method} ${request.url.pathname}`];
      if (!route) return undefined;
      const response = await route(request);
      return isDevRoute ? { ...response, headers: { ...response.headers, ...devRouteCorsHeaders(origin, allowed) } } : response;
    },
  };
}
