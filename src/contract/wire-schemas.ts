/**
 * zod schemas of the wire.ts response shapes, for the generated contract files (openapi.ts,
 * json-schemas.ts). Server-only: the browser SDK imports wire.ts, never this module (it would pull
 * zod into its bundle). test/unit/contract-files.test.ts checks each inferred type equals its wire.ts type.
 */
import * as z from 'zod';

export const actorSchema = z.object({ id: z.string(), name: z.string().optional() }).catchall(z.unknown());

export const notificationActionSchema = z.object({ label: z.string(), url: z.string().optional(), actionId: z.string().optional() });

export const notificationSchema = z.object({
  id: z.string().describe('ULID: sorting ids sorts by arrival'),
  type: z.string(),
  createdAt: z.string(),
  read: z.boolean(),
  seen: z.boolean(),
  actor: actorSchema,
  title: z.string(),
  body: z.string(),
  data: z.record(z.string(), z.unknown()),
  archived: z.boolean().optional().describe('present (true) only when archived'),
  comebackOf: z.string().optional().describe('a snooze comeback only: the id of the notification it brings back (a `retracted` naming it drops the comeback too)'),
  actionUrl: z.string().optional().describe('http or https only'),
  actions: z.array(notificationActionSchema).max(2).optional(),
});

export const notificationPageSchema = z.object({ items: z.array(notificationSchema), nextCursor: z.string().nullable() });

export const countsSchema = z.object({ unread: z.number().int(), unseen: z.number().int(), capped: z.boolean(), newestId: z.string().nullable() });

export const readAllAnswerSchema = z.object({ readAt: z.string() });

export const seenAllAnswerSchema = z.object({ seenAt: z.string() });

export const archiveReadAnswerSchema = z.object({ archivedAt: z.string() });

export const snoozeAnswerSchema = z.object({ until: z.string() });

export const itemActionSchema = z.enum(['read', 'unread', 'seen', 'archive', 'unarchive', 'delete']);

export const bulkAnswerSchema = z.object({ updated: z.array(z.string()), notFound: z.array(z.string()) });

/** The REST error body (handlers/rest/http.ts errorBody). */
export const errorBodySchema = z.object({
  error: z.object({ code: z.string(), message: z.string(), details: z.unknown().optional() }),
});

export const notificationMessageSchema = z.object({ type: z.literal('notification'), notification: notificationSchema });

export const notificationRefMessageSchema = z.object({ type: z.literal('notification_ref'), id: z.string(), notificationType: z.string(), createdAt: z.string() });

export const digestMessageSchema = z.object({ type: z.literal('digest'), count: z.number().int(), ids: z.array(z.string()), notifications: z.array(notificationSchema) });

export const readStateMessageSchema = z.object({
  type: z.literal('read_state'),
  readAt: z.string().nullable(),
  seenAt: z.string().nullable(),
  unread: z.number().int(),
  unseen: z.number().int(),
  capped: z.boolean().optional(),
  newestId: z.string().nullable().optional(),
  readMark: z.string().nullable().optional(),
  seenMark: z.string().nullable().optional(),
  ids: z.array(z.string()).optional(),
  readUpTo: z.string().optional(),
});

export const itemStateMessageSchema = z.object({
  type: z.literal('item_state'),
  action: z.union([itemActionSchema, z.literal('snooze')]),
  ids: z.array(z.string()),
  unread: z.number().int(),
  unseen: z.number().int(),
  capped: z.boolean(),
  newestId: z.string().nullable().optional(),
});

export const archivedReadMessageSchema = z.object({ type: z.literal('archived_read'), archivedAt: z.string(), unread: z.number().int(), unseen: z.number().int(), capped: z.boolean(), newestId: z.string().nullable().optional() });

export const retractedMessageSchema = z.object({ type: z.literal('retracted'), ids: z.array(z.string()) });

export const pongMessageSchema = z.object({ type: z.literal('pong') });

export const errorMessageSchema = z.object({ type: z.literal('error'), code: z.string(), message: z.string() });

export const serverMessageSchema = z.discriminatedUnion('type', [
  notificationMessageSchema,
  notificationRefMessageSchema,
  digestMessageSchema,
  readStateMessageSchema,
  itemStateMessageSchema,
  archivedReadMessageSchema,
  retractedMessageSchema,
  pongMessageSchema,
  errorMessageSchema,
]);

/** `GET /preferences` and the answer of `PUT /preferences` (core/preferences/preferences.ts `Preferences`). */
export const preferencesSchema = z.object({
  timeZone: z.string(),
  quietHours: z.object({ start: z.string(), end: z.string() }).nullable(),
  mutedTypes: z.array(z.string()),
  liveDelivery: z.record(z.string(), z.boolean()),
  updatedAt: z.string().nullable(),
  /** Per type, per channel on/off; omitted when the user switched nothing. */
  channels: z.record(z.string(), z.partialRecord(z.enum(['push', 'email', 'sms', 'escalation']), z.boolean())).optional(),
});

/** `POST /devices` answer and `GET /devices` items (the token stays server-side). */
export const deviceAnswerSchema = z.object({
  id: z.string(),
  platform: z.enum(['apns', 'apns_sandbox', 'fcm']),
  locale: z.string().optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const pushConsentSchema = z.object({ grantedAt: z.string(), version: z.string() });

/** `GET /devices`. */
export const channelStateAnswerSchema = z.object({
  items: z.array(deviceAnswerSchema),
  pushConsent: pushConsentSchema.nullable(),
  emailAddress: z.string().nullable(),
  emailUnsubscribed: z.array(z.string()),
});
