/**
 * Push devices and consent. A device is a (platform, token) pair registered by its owner; its id is
 * derived from the pair, so registering the same token again updates the same device. Push consent
 * is default-deny: no `pushConsent` record, no push, whatever the devices and switches say.
 */
import { createHash } from 'node:crypto';
import type { Platform } from '../../contract/channel-schemas.js';

/** Devices per user; registering one more is a 409 until one is removed. */
export const MAX_DEVICES_PER_USER = 20;

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

/** `d_` + 22 base64url characters of sha256(platform, token): the same token is the same device. */
export function deviceIdOf(platform: Platform, token: string): string {
  return `d_${createHash('sha256').update(`${platform}\u0000${token}`).digest('base64url').slice(0, 22)}`;
}

export interface PushConsent {
  grantedAt: string;
  /** The version of the consent text the user agreed to. */
  version: string;
}

/**
 * Which of a platform's K platform applications (one per FCM project or APNs key: each has its own
 * provider quota) holds a device token: a hash of the token, so the load spreads evenly and every
 * registration of a token, by whichever user, lands on the same application. That keeps one
 * endpoint per token, the record of its one owner (a phone handed to another account must not keep
 * an endpoint naming the old one on another application), so stickiness is per device, not per user.
 */
export function platformApplicationIndex(token: string, applications: number): number {
  if (applications <= 1) return 0;
  return createHash('sha256').update(token).digest().readUInt32BE(0) % applications;
}
