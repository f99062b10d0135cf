/**
 * The user export (GDPR Art. 15): one JSON document with everything stored about a user, as
 * `npm run export` streams it. Versioned by `format`; every field is required so a consumer can
 * tell "none" from "not exported".
 */
import * as z from 'zod';
import { actorSchema, notificationSchema, preferencesSchema } from './wire-schemas.js';

/** v2: devices, consent, address, unsubscribes, per-item state and the celebrity-feed items the inbox shows; v3: post alert subscriptions (theirs, and their subscribers). */
export const USER_EXPORT_FORMAT = 'serverless-notifications.user-export.v3';

const exportedNotificationSchema = notificationSchema.extend({ expiresAt: z.number().int().describe('epoch seconds: when retention (TTL) removes it') });
/** One item of their inbox view with its state for them (deleted and snoozed ones too: they are still stored). */
const exportedInboxItemSchema = exportedNotificationSchema.extend({
  archived: z.boolean(),
  deleted: z.boolean(),
  snoozedUntil: z.string().nullable().describe('ISO time a snoozed item comes back; null when not snoozed'),
  source: z.enum(['inbox', 'celebrityFeed']).describe('their own inbox, or the feed of a celebrity they follow (from when they followed)'),
});
/** A push device: never its token or endpoint. */
const exportedDeviceSchema = z.object({ deviceId: z.string(), platform: z.string(), locale: z.string().nullable(), createdAt: z.string(), updatedAt: z.string() }).strict();
const edgeSchema = z.object({ userId: z.string(), followedAt: z.string().nullable() }).strict();
/** A follow pair: followedAt is the start of its current follow run, null once unfollowed (the pair is kept as a marker for a while); history is its records by arrival. */
const pairSchema = edgeSchema
  .extend({ history: z.array(z.object({ at: z.string(), kind: z.enum(['follow', 'unfollow']) }).strict()).optional().describe('the follows and unfollows of the pair, by arrival (when the system accepted each)') })
  .strict();

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
    /** Their inbox view (own inbox, then each followed celebrity's feed from when they followed), newest first per source, with per-item state. */
    inbox: z.array(exportedInboxItemSchema),
    /** Posts they authored still held (celebrity feed, recent posts log). */
    authoredPosts: z.array(exportedNotificationSchema.omit({ read: true, seen: true }).extend({ actor: actorSchema })),
    followers: z.array(pairSchema),
    following: z.array(pairSchema),
    followedCelebrities: z.array(edgeSchema),
    /** The accounts they turned post alerts on for (the bell), since when. */
    alertSubscriptions: z.array(z.object({ accountId: z.string(), since: z.string().nullable() }).strict()),
    /** The followers who turned post alerts on for them, since when. */
    alertSubscribers: z.array(z.object({ userId: z.string(), since: z.string().nullable() }).strict()),
    connections: z.array(z.object({ connectionId: z.string(), connectedAt: z.string().nullable() }).strict()),
    devices: z.array(exportedDeviceSchema),
    pushConsent: z.object({ grantedAt: z.string(), version: z.string() }).strict().nullable(),
    emailAddress: z.string().nullable(),
    /** Notification types they unsubscribed from by email. */
    emailUnsubscribed: z.array(z.string()),
  })
  .strict();

export type UserExport = z.infer<typeof userExportSchema>;
