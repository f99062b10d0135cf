/**
 * Push devices and consent. A device is a (platform, token) pair registered by its owner; its id is
 * derived from the pair, so registering the same token again updates the same device. Push consent
 * is default-deny: no `pushConsent` record, no push, whatever the devices and switches say.
 */
import { createHash } from 'node:crypto';
import * as z from 'zod';

export const PLATFORMS = ['apns', 'apns_sandbox', 'fcm'] as const;
export const platformSchema = z.enum(PLATFORMS);
export type Platform = z.infer<typeof platformSchema>;

/** Devices per user; registering one more is a 409 until one is removed. */
export const MAX_DEVICES_PER_USER = 20;

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

export interface Device {
  id: string;
  platform: Platform;
  token: string;
  locale?: string;
  /** The SNS platform endpoint that delivers to the token. */
  endpointArn: string;
  createdAt: string;
  updatedAt: string;
}

export const DEVICE_ID_PATTERN = /^d_[A-Za-z0-9_-]{22}$/;

/** `d_` + 22 base64url characters of sha256(platform, token): the same token is the same device. */
export function deviceIdOf(platform: Platform, token: string): string {
  return `d_${createHash('sha256').update(`${platform}\u0000${token}`).digest('base64url').slice(0, 22)}`;
}

export const pushConsentInputSchema = z.object({ version: z.string().min(1).max(64).regex(/^[A-Za-z0-9._-]+$/, 'must be a consent text version such as 2026-11') }).strict();

export interface PushConsent {
  grantedAt: string;
  /** The version of the consent text the user agreed to. */
  version: string;
}
