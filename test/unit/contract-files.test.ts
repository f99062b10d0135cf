/**
 * The contract files generated from the zod schemas: the OpenAPI document is valid OpenAPI 3.1 and
 * covers every REST route, every JSON Schema compiles (2020-12) and covers every catalog type and
 * WebSocket message, real payloads validate, and the wire-schemas.ts types equal the wire.ts types.
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type * as z from 'zod';
import { eventsJsonSchema, websocketJsonSchema } from '../../src/api-docs/json-schemas.js';
import { openApiDocument } from '../../src/api-docs/openapi.js';
import type * as wire from '../../src/contract/wire.js';
import type * as schemas from '../../src/contract/wire-schemas.js';
import type { Preferences } from '../../src/core/preferences/preferences.js';
import { restRoutes } from '../../src/contract/rest-routes.js';
import { catalog } from '../../src/notifications/index.js';
import { aMention } from '../support/events.js';

type Out<Schema extends z.ZodType> = z.infer<Schema>;

const WEBSOCKET_MESSAGES = ['server.notification', 'server.notification_ref', 'server.digest', 'server.read_state', 'server.pong', 'server.error', 'client.ping'];

/** `validateFormats: false`: zod emits a `pattern` beside each `format`, so nothing is lost. */
function newAjv() {
  return new Ajv2020({ strict: true, allErrors: true, validateFormats: false });
}

describe('Contract files', () => {
  it('the zod schemas of the response shapes infer exactly the wire.ts types', () => {
    expectTypeOf<Out<typeof schemas.notificationSchema>>().toEqualTypeOf<wire.Notification>();
    expectTypeOf<Out<typeof schemas.notificationPageSchema>>().toEqualTypeOf<wire.NotificationPage>();
    expectTypeOf<Out<typeof schemas.countsSchema>>().toEqualTypeOf<wire.Counts>();
    expectTypeOf<Out<typeof schemas.readAllAnswerSchema>>().toEqualTypeOf<wire.ReadAllAnswer>();
    expectTypeOf<Out<typeof schemas.seenAllAnswerSchema>>().toEqualTypeOf<wire.SeenAllAnswer>();
    expectTypeOf<Out<typeof schemas.notificationMessageSchema>>().toEqualTypeOf<wire.NotificationMessage>();
    expectTypeOf<Out<typeof schemas.notificationRefMessageSchema>>().toEqualTypeOf<wire.NotificationRefMessage>();
    expectTypeOf<Out<typeof schemas.digestMessageSchema>>().toEqualTypeOf<wire.DigestMessage>();
    expectTypeOf<Out<typeof schemas.readStateMessageSchema>>().toEqualTypeOf<wire.ReadStateMessage>();
    expectTypeOf<Out<typeof schemas.pongMessageSchema>>().toEqualTypeOf<wire.PongMessage>();
    expectTypeOf<Out<typeof schemas.errorMessageSchema>>().toEqualTypeOf<wire.ErrorMessage>();
    expectTypeOf<Out<typeof schemas.serverMessageSchema>>().toEqualTypeOf<wire.ServerMessage>();
    expectTypeOf<Out<typeof schemas.preferencesSchema>>().toEqualTypeOf<Preferences>();
  });

  it('the OpenAPI document is valid OpenAPI 3.1 and has every REST route of routes.ts', async () => {
    const document = openApiDocument() as { openapi: string; paths: Record<string, Record<string, unknown>> };
    expect(document.openapi).toMatch(/^3\.1\./);
    await SwaggerParser.validate(structuredClone(document) as never);
    for (const route of restRoutes) expect(document.paths[route.resource]?.[route.method.toLowerCase()], `${route.method} ${route.resource}`).toBeDefined();
    const operations = Object.values(document.paths).flatMap((methods) => Object.keys(methods));
    expect(operations).toHaveLength(restRoutes.length);
  });

  it('the PUT /preferences body allows muting as many types as the server does: those that notify', () => {
    const document = openApiDocument() as { paths: Record<string, Record<string, { requestBody: { content: { 'application/json': { schema: { properties: { mutedTypes: { maxItems: number } } } } } } }>> };
    const body = document.paths['/preferences']!.put!.requestBody.content['application/json'].schema;
    expect(body.properties.mutedTypes.maxItems).toBe(catalog.filter((type) => type.audience !== 'none').length);
  });

  it('the OpenAPI response schemas compile and accept real answers', () => {
    const ajv = newAjv();
    const schemas = (openApiDocument() as { components: { schemas: Record<string, object> } }).components.schemas;
    for (const schema of Object.values(schemas)) ajv.compile(schema);
    expect(ajv.validate(schemas.Counts!, { unread: 3, unseen: 0, capped: false, newestId: null })).toBe(true);
    expect(ajv.validate(schemas.Counts!, { unread: 3 })).toBe(false);
    expect(ajv.validate(schemas.NotificationPage!, { items: [], nextCursor: null })).toBe(true);
  });

  it('the events schema compiles and has one definition per catalog type', () => {
    const document = eventsJsonSchema() as { $defs: Record<string, object> };
    expect(Object.keys(document.$defs).sort()).toEqual(catalog.map((type) => type.detailType).sort());
    const ajv = newAjv();
    ajv.compile(document);
    for (const type of Object.keys(document.$defs)) expect(ajv.getSchema(`urn:notifications:schemas:events#/$defs/${type}`), type).toBeDefined();
  });

  it('an aMention() event validates as mention.created; one missing a field does not', () => {
    const ajv = newAjv();
    ajv.addSchema(eventsJsonSchema());
    const mention = ajv.getSchema('urn:notifications:schemas:events#/$defs/mention.created')!;
    const event = aMention();
    expect(mention(event), JSON.stringify(mention.errors)).toBe(true);
    const { tenantId: _tenantId, ...withoutTenant } = event;
    expect(mention(withoutTenant)).toBe(false);
    expect(mention({ ...event, data: { postId: 'p1' } })).toBe(false);
    expect(mention({ ...event, unexpected: true })).toBe(false);
  });

  it('the WebSocket schema compiles, has every message type and validates real messages', () => {
    const document = websocketJsonSchema() as { $defs: Record<string, object> };
    for (const name of WEBSOCKET_MESSAGES) expect(document.$defs[name], name).toBeDefined();
    const ajv = newAjv();
    const message = ajv.compile(document);
    const notification: wire.Notification = { id: '01J00000000000000000000000', type: 'mention.created', createdAt: '2026-01-01T00:00:00.000Z', read: false, seen: false, actor: { id: 'bob' }, title: 't', body: 'b', data: {} };
    expect(message({ type: 'notification', notification })).toBe(true);
    expect(message({ type: 'read_state', readAt: null, seenAt: null, unread: 0, unseen: 0, capped: false })).toBe(true);
    expect(message({ action: 'ping' })).toBe(true);
    expect(message({ type: 'notification', notification: { ...notification, title: undefined } })).toBe(false);
    expect(message({ type: 'digest', count: 1 })).toBe(false);
  });
});
