/**
 * JSON Schemas (draft 2020-12) of the producer events and the WebSocket messages, generated at run
 * time from the zod schemas the server validates and builds with, so the files cannot drift from the code.
 */
import * as z from 'zod';
import { eventEnvelopeSchema } from '../core/fanout/events.js';
import type { NotificationType } from '../core/ports/notification-type.js';
import { catalog as projectCatalog } from '../notifications/index.js';
import { clientMessageSchema } from '../contract/client-messages.js';
import { serverMessageSchema } from '../contract/wire-schemas.js';

export type JsonSchema = Record<string, unknown>;

export const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/** A zod schema as a JSON Schema without its own `$schema` (for embedding); refinements are not representable and are left out. */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output' = 'output'): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonSchema;
  return rest;
}

/** The `detail` of one type's event: the envelope with that type's data schema. */
export function eventDetailSchema(type: NotificationType): JsonSchema {
  return {
    title: `${type.detailType} event detail`,
    description: `EventBridge detail of detail-type "${type.detailType}". Also required at run time: recipients or audience.followersOf (unless the type derives them).`,
    ...jsonSchemaOf(eventEnvelopeSchema.extend({ data: type.dataSchema }), 'input'),
  };
}

/** One schema per catalog type under `$defs` (keyed by detail-type); the root accepts the detail of any of them. */
export function eventsJsonSchema(catalog: readonly NotificationType[] = projectCatalog): JsonSchema {
  const defs = Object.fromEntries(catalog.map((type) => [type.detailType, eventDetailSchema(type)]));
  return {
    $schema: JSON_SCHEMA_DIALECT,
    $id: 'urn:notifications:schemas:events',
    title: 'Producer events (EventBridge detail, one $defs entry per detail-type)',
    $defs: defs,
    anyOf: catalog.map((type) => ({ $ref: `#/$defs/${type.detailType}` })),
  };
}

/** Server -> client and client -> server messages, each message type under `$defs` (keyed by its `type` or `action`). */
export function websocketJsonSchema(): JsonSchema {
  const serverMessages = serverMessageSchema.options.map((option) => [String(option.shape.type.value), jsonSchemaOf(option)] as const);
  const clientMessages = [[String(clientMessageSchema.shape.action.value), jsonSchemaOf(clientMessageSchema)] as const];
  return {
    $schema: JSON_SCHEMA_DIALECT,
    $id: 'urn:notifications:schemas:websocket',
    title: 'WebSocket messages: server -> client (by type) and client -> server (by action)',
    $defs: {
      server: { anyOf: serverMessages.map(([name]) => ({ $ref: `#/$defs/server.${name}` })) },
      client: { anyOf: clientMessages.map(([name]) => ({ $ref: `#/$defs/client.${name}` })) },
      ...Object.fromEntries(serverMessages.map(([name, schema]) => [`server.${name}`, schema])),
      ...Object.fromEntries(clientMessages.map(([name, schema]) => [`client.${name}`, schema])),
    },
    anyOf: [{ $ref: '#/$defs/server' }, { $ref: '#/$defs/client' }],
  };
}
