/**
 * The user export (GDPR Art. 15): one JSON document with everything stored about a user, as
 * `npm run export` streams it. Versioned by `format`; every field is required so a consumer can
 * tell "none" from "not exported".
 */
import * as z from 'zod';
import { actorSchema, notificationSchema, preferencesSchema } from './wire-schemas.js';

export const USER_EXPORT_FORMAT = 'serverless-notifications.user-export.v1';

const exportedNotificationSchema = notificationSchema.extend({ expiresAt: z.number().int().describe('epoch seconds: when retention (TTL) removes it') });
const edgeSchema = z.object({ userId: z.string(), followedAt: z.string().nullable() }).strict();

export const userExportSchema = z
  .object({
    format: z.literal(USER_EXPORT_FORMAT),
    tenantId: z.string(),
    userId: z.string(),
    exportedAt: z.string(),
    profile: z.object({ followerCount: z.number().int(), tier: z.enum(['ordinary', 'celebrity']) }).strict().nullable(),
    /** null: the user never saved preferences (defaults apply). */
    preferences: preferencesSchema.partial().catchall(z.unknown()).nullable(),
    readState: z
      .object({ readMark: z.string().nullable(), readAt: z.string().nullable(), seenMark: z.string().nullable(), seenAt: z.string().nullable(), singleReads: z.array(z.string()) })
      .strict(),
    /** Their inbox, newest first, with read state. */
    inbox: z.array(exportedNotificationSchema),
    /** Posts they authored still held (celebrity feed, recent posts log). */
    authoredPosts: z.array(exportedNotificationSchema.omit({ read: true, seen: true }).extend({ actor: actorSchema })),
    followers: z.array(edgeSchema),
    following: z.array(edgeSchema),
    followedCelebrities: z.array(edgeSchema),
    connections: z.array(z.object({ connectionId: z.string(), connectedAt: z.string().nullable() }).strict()),
    /** Push devices, once the system stores them (none today). */
    devices: z.array(z.unknown()),
  })
  .strict();

export type UserExport = z.infer<typeof userExportSchema>;
