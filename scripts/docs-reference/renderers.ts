/**
 * What each generated region of the docs says, rendered from the code: the REST routes and answer
 * shapes from the OpenAPI document, the WebSocket messages from their JSON Schema, the event
 * envelope and every catalog type's data from the zod schemas validation runs.
 */
import { resolve } from 'node:path';
import { readKeptGrants } from '../least-privilege/kept-grants.js';
import { localEnvFromEnv, localSettingsShape } from '../../src/local/settings.js';
import { websocketJsonSchema } from '../../src/api-docs/json-schemas.js';
import { openApiDocument } from '../../src/api-docs/openapi.js';
import { eventEnvelopeSchema } from '../../src/core/fanout/events.js';
import type { NotificationType } from '../../src/core/ports/notification-type.js';
import { catalog } from '../../src/notifications/index.js';
import { fieldNames, typeText, type JsonSchema } from './json-schema-types.js';
import { code, table } from './markdown.js';
import { fieldRows, objectRules, type FieldRow } from './zod-rules.js';
import type { Renderers } from './regions.js';

interface Operation {
  summary: string;
  security: unknown[];
  parameters: { name: string; in: 'query' | 'path'; required: boolean }[];
  requestBody?: { content: { 'application/json': { schema: JsonSchema } } };
  responses: Record<string, { content?: Record<string, { schema: JsonSchema }> }>;
}

interface OpenApi {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, JsonSchema> };
}

const openApi = () => openApiDocument() as unknown as OpenApi;

/**
 * The notification as every answer and message carries it, and the named answers, so a nested copy
 * prints as its name (`Notification[]`, `Device[]`); `except` leaves out the shape being printed.
 */
function namedShapes(document: OpenApi, except?: string): Map<string, JsonSchema> {
  const page = document.components.schemas.NotificationPage as { properties: { items: { items: JsonSchema } } };
  const named = Object.entries(document.components.schemas).filter(([name]) => name !== except);
  return new Map([['Notification', page.properties.items.items], ...named]);
}

function answerOf(operation: Operation): string {
  const [status, response] = Object.entries(operation.responses).find(([code]) => code.startsWith('2'))!;
  const schema = response.content?.['application/json']?.schema;
  if (schema) return `${status} ${typeText(schema)}`;
  return response.content?.['text/html'] ? `${status} HTML page` : status;
}

function takes(operation: Operation): string {
  const parts: string[] = [];
  const query = operation.parameters.filter((parameter) => parameter.in === 'query').map((parameter) => `${parameter.name}${parameter.required ? '' : '?'}`);
  if (query.length > 0) parts.push(`query ${query.map(code).join(', ')}`);
  const body = operation.requestBody?.content['application/json'].schema;
  if (body) parts.push(`body ${code(`{ ${fieldNames(body).join(', ')} }`)}`);
  return parts.join('; ') || '-';
}

export function restRoutesTable(): string {
  const document = openApi();
  const rows = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => [
      code(`${method.toUpperCase()} ${path}`),
      takes(operation),
      answerOf(operation),
      Object.keys(operation.responses).filter((status) => !status.startsWith('2')).join(', '),
      operation.summary,
    ]),
  );
  return table(['route', 'takes', 'answers', 'errors', 'what it does'], rows);
}

export function restShapes(): string {
  const document = openApi();
  const shapes = namedShapes(document);
  const notification = shapes.get('Notification')!;
  const required = new Set((notification.required ?? []) as string[]);
  const fields = Object.entries(notification.properties as Record<string, JsonSchema>).map(([name, schema]) => [
    code(name),
    required.has(name) ? 'always' : 'optional',
    code(typeText(schema)),
    typeof schema.description === 'string' ? schema.description : '',
  ]);
  const answers = Object.entries(document.components.schemas)
    .filter(([name]) => name !== 'ErrorBody')
    .map(([name, schema]) => [code(name), code(typeText(schema, namedShapes(document, name)))]);
  return [
    '`Notification`, in every page and live message:',
    '',
    table(['field', 'present', 'type', 'note'], fields),
    '',
    'Answers (the `answers` column above) and the error body:',
    '',
    table(['name', 'shape'], [...answers, [code('ErrorBody'), code(typeText(document.components.schemas.ErrorBody))]]),
  ].join('\n');
}

function rowsTable(rows: readonly FieldRow[], withRequired = true): string {
  const header = withRequired ? ['field', '', 'type', 'rules', 'meaning'] : ['field', 'type', 'rules', 'meaning'];
  return table(
    header,
    rows.map((row) => {
      const cells = [code(row.path), code(row.type), row.rules.join('; '), row.description ?? ''];
      return withRequired ? [cells[0]!, row.required ? 'required' : 'optional', ...cells.slice(1)] : cells;
    }),
  );
}

export function eventEnvelope(): string {
  const rows = fieldRows(eventEnvelopeSchema, '', { expand: (path) => path !== 'data' });
  return [rowsTable(rows), '', `The envelope as a whole: ${objectRules(eventEnvelopeSchema).join('; ')}.`].join('\n');
}

function audienceOf(type: NotificationType): string {
  if (type.audience === 'none') return 'none (no notification)';
  const base = type.audience === 'followersOfActor' ? 'followers of the actor' : '`recipients`';
  return type.recipientsFromData ? `${base}, plus the recipients it derives from \`data\`` : base;
}

function channelOf(type: NotificationType, channel: 'push' | 'email'): string {
  const offered = type.channels?.[channel];
  return offered === undefined ? '-' : offered ? 'on' : 'off';
}

function effectsOf(type: NotificationType): string {
  const effects: string[] = [];
  if (type.graphEffect === 'follow') effects.push('adds the edge actor -> followee to the graph');
  if (type.graphEffect === 'unfollow') effects.push('removes the edge actor -> followee');
  if (type.retraction) effects.push('withdraws the event it names');
  if (type.links) effects.push('action links');
  if (type.urgentBypassesQuietHours === false) effects.push('urgent pushes wait for quiet hours');
  if (type.sensitive) effects.push('push and email say only "New notification"');
  if (type.deliveryGuarantee === 'at-least-once') effects.push('push / email at least once (a crash mid-send sends again)');
  if (type.escalation) effects.push(`escalates to ${type.escalation.channel} when still ${type.escalation.when} after ${type.escalation.afterSeconds % 60 === 0 ? `${type.escalation.afterSeconds / 60} min` : `${type.escalation.afterSeconds} s`}`);
  return effects.join('; ');
}

export function eventCatalog(): string {
  const rows = catalog.map((type) => [
    code(type.detailType),
    type.defaultPriority,
    audienceOf(type),
    type.digestible ? 'yes' : 'no',
    channelOf(type, 'push'),
    channelOf(type, 'email'),
    [type.category, ...(type.tags ?? [])].filter((value): value is string => value !== undefined).map(code).join(', '),
    effectsOf(type),
  ]);
  return table(['`DetailType`', 'default priority', 'audience', 'digestible', 'push', 'email', 'category, tags', 'effect'], rows);
}

export function eventData(): string {
  return catalog
    .map((type) => [`**${code(type.detailType)}** \`data\` (${objectRules(type.dataSchema).join('; ')}):`, '', rowsTable(fieldRows(type.dataSchema))].join('\n'))
    .join('\n\n');
}

export function websocketMessages(): string {
  const schema = websocketJsonSchema() as { $defs: Record<string, JsonSchema> };
  const shapes = namedShapes(openApi());
  const messages = (side: 'server' | 'client') =>
    Object.entries(schema.$defs)
      .filter(([name]) => name.startsWith(`${side}.`))
      .map(([name, message]) => [code(name.slice(side.length + 1)), code(typeText(message, shapes))]);
  return [
    'Server -> client (JSON text frames, by `type`):',
    '',
    table(['`type`', 'shape'], messages('server')),
    '',
    'Client -> server (by `action`):',
    '',
    table(['`action`', 'shape'], messages('client')),
  ].join('\n');
}

/**
 * What each local runtime variable means (the names and defaults come from the code). A variable
 * without a line here, or a line without a variable, fails the render: the table cannot go stale.
 * `unset` describes a default the parse leaves undefined (derived elsewhere).
 */
const LOCAL_SETTINGS: Record<keyof typeof localSettingsShape, { meaning: string; unset?: string }> = {
  HOST: { meaning: 'address every local endpoint listens on; requests whose `Host` is not a loopback name, an IP literal or `HOST` are refused (no DNS rebinding)' },
  PORT: { meaning: 'HTTP: the REST API, the EventBridge-compatible `PutEvents` endpoint, the SQS endpoint and the demo page' },
  WS_PORT: { meaning: 'WebSocket (and its `@connections` management API)' },
  DATA_DIR: { meaning: 'DynamoDB data, queue journals, schedules, the bus archive, the local signing key and secrets; survives a restart' },
  CELEBRITY_THRESHOLD: { meaning: 'followers at which an account switches to the celebrity tier (demoted below 90 %)' },
  INFO_BATCH_WINDOW_MS: { meaning: 'batching window of the info delivery queue, the digest window (30 s on AWS)' },
  FEED_SHARDS: { meaning: 'partitions a celebrity event is written to' },
  FUNCTION_TIMEOUT_MS: { meaning: "timeout of the local functions: their Lambda context's remaining time counts down from it" },
  QUEUE_VISIBILITY_TIMEOUT_MS: { meaning: "a failed record is retried after it (AWS's rule: at least 6x the function timeout)", unset: '6 x `FUNCTION_TIMEOUT_MS`' },
  MAX_RECEIVE_COUNT: { meaning: 'receives before a record moves to its DLQ' },
  INTAKE_BACKLOG_LIMIT: { meaning: 'messages an intake queue may hold at most before `PutEvents` throttles its entries (`0`: no cap)' },
  INTAKE_BACKLOG_SECONDS: { meaning: "backlog an intake queue may hold, in seconds of its consumer's measured drain rate (and age of its oldest waiting message), before `PutEvents` throttles its entries; 100 messages are always taken, 500 from idle (`0`: only `INTAKE_BACKLOG_LIMIT`)" },
  RATE_LIMIT_PER_MINUTE: { meaning: 'live pushes per user per minute before the rest collapse into one digest (`0`: off)' },
  SEND_AT_MIN_DELAY_MS: { meaning: 'a `sendAt` closer than this is sent at once (60 s on AWS)' },
  LOG_LEVEL: { meaning: "log level of the local runtime's logger", unset: '`WARN`' },
  CHANNEL_BATCH_WINDOW_MS: { meaning: "the email queue's batching window: a burst becomes one digest email (60 s on AWS)" },
  CHANNEL_RATE_LIMIT_PER_WINDOW: { meaning: 'push / email messages per user per minute before the rest wait for one digest' },
  SMS_DAILY_LIMIT_PER_USER: { meaning: "the SMS spend guard per user: texts per user per UTC day; the rest are dropped with a WARN (`0`: none sent; the construct's `channels.sms.dailyLimitPerUser`)" },
  SMS_DAILY_LIMIT: { meaning: "the global SMS spend guard: texts per UTC day in all, keyword answers included (`0`: none sent; the construct's `channels.sms.dailyLimit`)" },
  SMS_SELF_MANAGED_OPT_OUTS: { meaning: "`true`: the SMS stand-in's number has self-managed opt-outs (the construct's `channels.sms.selfManagedOptOuts`): the inbound function answers HELP, STOP and START and the stand-in neither lists nor answers keywords; `false`: the stand-in does both, as the service does by default ([channels](channels.md#stop-start-and-help))" },
  ESCALATION_DELAY_SECONDS: { meaning: "replaces every type's escalation delay in seconds (0: the catalog's, e.g. 900 for `mention.created`), so a demo or test sees an escalation without waiting" },
  PREFERENCES_CACHE_TTL_MS: { meaning: 'how long fan-out, delivery, the channels and the inbox read trust a preferences read: a change applies within it' },
  LOCAL_FUNCTIONS: { meaning: 'a cdk.out directory written by `npm run synth:local`: the runtime runs the synthesized esbuild bundles with the environment the template gives each function, instead of the sources ([run what is deployed](least-privilege.md#run-what-is-deployed))', unset: 'the sources' },
  RECORD_AWS_CALLS: { meaning: 'a directory: every AWS call each function makes is recorded there (JSON lines) for the least-privilege check ([least privilege](least-privilege.md)); `npm test` sets it. Also read from the process environment by a runtime started in-process with settings of its own (the test suite)', unset: 'off' },
  CATALOG_ENTRY: { meaning: "a team's catalog module (the construct's `catalogEntry`, e.g. `./notifications/index.ts`): bundled, checked and served by every local function, the demo page and the contract files", unset: "the package's catalog" },
  CORS_ALLOW_ORIGINS: { meaning: 'comma-separated origins allowed to call the REST API; `/dev/token` answers the origins named here (with `*`: pages on `localhost` / `127.0.0.1` only)' },
};

export function localSettingsTable(): string {
  const names = Object.keys(localSettingsShape);
  const extra = Object.keys(LOCAL_SETTINGS).filter((name) => !names.includes(name));
  if (extra.length > 0) throw new Error(`LOCAL_SETTINGS describes variables the local runtime does not read: ${extra.join(', ')}`);
  const defaults = localEnvFromEnv({}) as Record<string, unknown>;
  return table(
    ['variable', 'default', 'meaning'],
    names.map((name) => {
      const line = LOCAL_SETTINGS[name as keyof typeof LOCAL_SETTINGS];
      if (!line) throw new Error(`local runtime variable ${name} has no meaning in scripts/docs-reference/renderers.ts`);
      const value = defaults[name];
      return [code(name), value === undefined ? (line.unset ?? 'unset') : code(String(value)), line.meaning];
    }),
  );
}

/** The grants kept although no recorded call uses them, with their reasons (`docs/kept-grants.json`, which the least-privilege check reads). */
export function keptGrantsTable(): string {
  const root = resolve(import.meta.dirname, '..', '..');
  return table(
    ['function', 'action', 'resource', 'why it is kept'],
    readKeptGrants(root).map((grant) => [code(grant.function), code(grant.action), code(grant.resource), grant.reason]),
  );
}

/** Region name -> renderer; `regions.ts` finds each region in the pages. */
export const renderers: Renderers = {
  'rest-routes': restRoutesTable,
  'rest-shapes': restShapes,
  'event-envelope': eventEnvelope,
  'event-catalog': eventCatalog,
  'event-data': eventData,
  'websocket-messages': websocketMessages,
  'local-settings': localSettingsTable,
  'kept-grants': keptGrantsTable,
};
