/**
 * The OpenAPI 3.1 document of the REST API, generated at run time from the zod schemas the handlers
 * validate with (contract/rest-schemas.ts, core/preferences/preferences.ts) and the wire.ts response schemas
 * (wire-schemas.ts), for every route of contract/rest-routes.ts, so it cannot drift from the code.
 */
import type * as z from 'zod';
import * as zod from 'zod';
import { alertPathSchema, deviceInputSchema, devicePathSchema, pushConsentInputSchema, smsOptInInputSchema } from '../contract/channel-schemas.js';
import { preferencesInputSchema } from '../contract/preferences-schemas.js';
import { restRoutes, type RestRoute } from '../contract/rest-routes.js';
import { bulkBodySchema, countsQuerySchema, inboxQuerySchema, markAllBodySchema, markOneReadPathSchema, snoozeBodySchema } from '../contract/rest-schemas.js';
import { catalog } from '../notifications/index.js';
import { jsonSchemaOf, type JsonSchema } from './json-schemas.js';
import {
  archiveReadAnswerSchema,
  channelStateAnswerSchema,
  deviceAnswerSchema,
  pushConsentSchema,
  bulkAnswerSchema,
  countsSchema,
  errorBodySchema,
  notificationPageSchema,
  preferencesSchema,
  readAllAnswerSchema,
  seenAllAnswerSchema,
  snoozeAnswerSchema,
} from '../contract/wire-schemas.js';

interface Operation {
  summary: string;
  query?: z.ZodObject;
  path?: z.ZodObject;
  body?: z.ZodType;
  /** Component name of the 200 answer; none = 204 No Content. */
  answer?: string;
  /** The answer is an HTML page (the unsubscribe confirmation). */
  html?: true;
}

const deviceSchemaAnswer = 'Device';


/** What each route of routes.ts takes and answers, keyed `METHOD resource`. */
const operations: Record<string, Operation> = {
  'GET /notifications': {
    summary: 'A page of the inbox, newest first (or everything newer than `since`); filters `read`, `archived`, `type` (comma-separated), `category`, `tags`, kept by the cursor',
    query: inboxQuerySchema,
    answer: 'NotificationPage',
  },
  'GET /notifications/counts': { summary: 'Unread and unseen counts (capped at 99), of one tab with `category` or `type`', query: countsQuerySchema, answer: 'Counts' },
  'POST /notifications/read-all': { summary: 'Mark everything (up to `upTo`) read', body: markAllBodySchema, answer: 'ReadAllAnswer' },
  'POST /notifications/seen-all': { summary: 'Mark everything (up to `upTo`) seen', body: markAllBodySchema, answer: 'SeenAllAnswer' },
  'POST /notifications/{id}/read': { summary: 'Mark one notification read', path: markOneReadPathSchema },
  'POST /notifications/{id}/unread': { summary: 'Mark one notification unread (also below the read mark)', path: markOneReadPathSchema },
  'POST /notifications/{id}/seen': { summary: 'Mark one notification seen', path: markOneReadPathSchema },
  'POST /notifications/{id}/archive': { summary: 'Archive one notification', path: markOneReadPathSchema },
  'POST /notifications/{id}/unarchive': { summary: 'Unarchive one notification', path: markOneReadPathSchema },
  'POST /notifications/{id}/snooze': { summary: 'Hide one notification until `until` (before it expires); it then comes back as a new unread arrival', path: markOneReadPathSchema, body: snoozeBodySchema, answer: 'SnoozeAnswer' },
  'DELETE /notifications/{id}': { summary: 'Delete one notification for the caller (hidden everywhere, counts included)', path: markOneReadPathSchema },
  'POST /notifications/archive-read': { summary: 'Archive everything read (one write)', answer: 'ArchiveReadAnswer' },
  'POST /notifications/bulk': { summary: 'One action on up to 100 ids; ids not in the caller\'s view are named and never touched', body: bulkBodySchema, answer: 'BulkAnswer' },
  'GET /preferences': { summary: "The user's delivery preferences", answer: 'Preferences' },
  // The types a user can mute are those that notify (app/preferences.ts notifyingTypes), as the server validates.
  'PUT /preferences': { summary: "Replace the user's delivery preferences", body: preferencesInputSchema(catalog.filter((type) => type.audience !== 'none').map((type) => type.detailType)), answer: 'Preferences' },
  'GET /devices': { summary: "The caller's push devices, push consent, email address and email unsubscribes", answer: 'ChannelState' },
  'POST /devices': { summary: 'Register (or refresh) a push token: creates or updates its SNS platform endpoint (201 new, 200 known; 409 over 20 devices)', body: deviceInputSchema, answer: deviceSchemaAnswer },
  'DELETE /devices/{id}': { summary: 'Remove a push device and its endpoint', path: devicePathSchema },
  'PUT /push-consent': { summary: 'Grant push consent (default-deny: no consent, no push)', body: pushConsentInputSchema, answer: 'PushConsentAnswer' },
  'DELETE /push-consent': { summary: 'Withdraw push consent (no push from the next send on)' },
  'PUT /email-address': { summary: "Send email to the verified `email` claim of the caller's token", answer: 'EmailAddressAnswer' },
  'DELETE /email-address': { summary: 'Stop email (forget the address)' },
  'PUT /sms': { summary: "Opt in to SMS at the verified `phone_number` claim of the caller's token (E.164; 400 without one)", body: smsOptInInputSchema, answer: 'SmsOptInAnswer' },
  'DELETE /sms': { summary: 'Opt out of SMS (forget the number)' },
  'PUT /alerts/{accountId}': { summary: 'Turn post alerts on for an account the caller follows (404 when not following)', path: alertPathSchema },
  'DELETE /alerts/{accountId}': { summary: 'Turn post alerts off for the account', path: alertPathSchema },
};

function parameters(where: 'query' | 'path', schema: z.ZodObject | undefined): JsonSchema[] {
  if (!schema) return [];
  const json = jsonSchemaOf(schema, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, property]) => ({
    name,
    in: where,
    required: where === 'path' || (json.required ?? []).includes(name),
    schema: property,
  }));
}

const errorAnswer = { description: 'Error', content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } } };

function operationOf(route: RestRoute): JsonSchema {
  const key = `${route.method} ${route.resource}`;
  const operation = operations[key];
  if (!operation) throw new Error(`no OpenAPI operation for REST route ${key}`);
  const success = operation.html
    ? { '200': { description: 'OK', content: { 'text/html': { schema: { type: 'string' } } } } }
    : operation.answer
    ? { '200': { description: 'OK', content: { 'application/json': { schema: { $ref: `#/components/schemas/${operation.answer}` } } } } }
    : { '204': { description: 'No Content' } };
  return {
    operationId: `${route.method.toLowerCase()}${route.resource.replace(/[{}]/g, '').replace(/[/-](\w)/g, (_match, letter: string) => letter.toUpperCase())}`,
    summary: operation.summary,
    security: route.auth === 'none' ? [] : [{ bearer: [] }],
    parameters: [...parameters('path', operation.path), ...parameters('query', operation.query)],
    ...(operation.body ? { requestBody: { required: false, content: { 'application/json': { schema: jsonSchemaOf(operation.body, 'input') } } } } : {}),
    responses: { ...success, '400': errorAnswer, '401': errorAnswer, ...(operation.path ? { '404': errorAnswer } : {}), ...(route.resource === '/preferences' && route.method === 'GET' ? { '409': errorAnswer } : {}) },
  };
}

export function openApiDocument(): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of restRoutes) (paths[route.resource] ??= {})[route.method.toLowerCase()] = operationOf(route);
  return {
    openapi: '3.1.0',
    info: { title: 'Notifications REST API', version: '1', description: 'Generated from the zod schemas of the server (src/api-docs/openapi.ts).' },
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      schemas: {
        NotificationPage: jsonSchemaOf(notificationPageSchema),
        Counts: jsonSchemaOf(countsSchema),
        ReadAllAnswer: jsonSchemaOf(readAllAnswerSchema),
        SeenAllAnswer: jsonSchemaOf(seenAllAnswerSchema),
        ArchiveReadAnswer: jsonSchemaOf(archiveReadAnswerSchema),
        SnoozeAnswer: jsonSchemaOf(snoozeAnswerSchema),
        BulkAnswer: jsonSchemaOf(bulkAnswerSchema),
        Preferences: jsonSchemaOf(preferencesSchema),
        Device: jsonSchemaOf(deviceAnswerSchema),
        ChannelState: jsonSchemaOf(channelStateAnswerSchema),
        PushConsentAnswer: jsonSchemaOf(zod.object({ pushConsent: pushConsentSchema })),
        EmailAddressAnswer: jsonSchemaOf(zod.object({ emailAddress: zod.string() })),
        SmsOptInAnswer: jsonSchemaOf(zod.object({ sms: zod.object({ phoneNumber: zod.string(), optedInAt: zod.string(), version: zod.string() }) })),
        UnsubscribeAnswer: jsonSchemaOf(zod.object({ unsubscribed: zod.string() })),
        ErrorBody: jsonSchemaOf(errorBodySchema),
      },
    },
  };
}
