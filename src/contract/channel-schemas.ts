/**
 * Request schemas of the channel routes (CONTRACT.md): push devices (`POST /devices`,
 * `DELETE /devices/{id}`), push consent (`PUT /push-consent`) and the one-click unsubscribe
 * (`GET/POST /unsubscribe?token=`), with the push platforms they name.
 */
import * as z from 'zod';

export const PLATFORMS = ['apns', 'apns_sandbox', 'fcm'] as const;
export const platformSchema = z.enum(PLATFORMS);
export type Platform = z.infer<typeof platformSchema>;

/** APNs tokens are 64 hex characters today, FCM tokens about 160; both stay far below this. */
const MAX_TOKEN_LENGTH = 4_096;

export const deviceInputSchema = z
  .object({
    platform: platformSchema,
    token: z.string().min(8).max(MAX_TOKEN_LENGTH).regex(/^[A-Za-z0-9_:\-.]+$/, 'must be a push token (letters, digits, _ : - .)'),
    /** BCP 47, e.g. `de-DE`: the language of the push text. */
    locale: z.string().regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8}){0,3}$/, 'must be a BCP 47 language tag such as de-DE').optional(),
  })
  .strict();
export type DeviceInput = z.infer<typeof deviceInputSchema>;

export const DEVICE_ID_PATTERN = /^d_[A-Za-z0-9_-]{22}$/;

/** `PUT / DELETE /alerts/{accountId}`: the followed account (a user id: 1-256 characters, no control characters). */
export const alertPathSchema = z.object({ accountId: z.string().min(1).max(256).refine((id) => ![...id].some((character) => character.charCodeAt(0) < 0x20 || character.charCodeAt(0) === 0x7f), 'must be a user id (no control characters)') }).strict();

export const devicePathSchema = z.object({ id: z.string().regex(DEVICE_ID_PATTERN, 'must be a device id from GET /devices') }).strict();

/**
 * A phone number in E.164 (`+` country code and subscriber number, 8 to 15 digits, no spaces): what
 * End User Messaging SMS takes as `DestinationPhoneNumber` and what the inbound topic names as
 * `originationNumber`.
 */
export const E164_PATTERN = /^\+[1-9][0-9]{7,14}$/;
export const e164Schema = z.string().regex(E164_PATTERN, 'must be a phone number in E.164, e.g. +14155550123');

/** `PUT /sms`: the version of the SMS consent text the user agreed to (the number comes from the token, never the body). */
export const smsOptInInputSchema = z.object({ version: z.string().min(1).max(64).regex(/^[A-Za-z0-9._-]+$/, 'must be a consent text version such as 2026-11') }).strict();

export const pushConsentInputSchema = z.object({ version: z.string().min(1).max(64).regex(/^[A-Za-z0-9._-]+$/, 'must be a consent text version such as 2026-11') }).strict();

export const unsubscribeQuerySchema = z.object({ token: z.string().min(1).max(2_048) }).strict();
