/**
 * The signed one-click unsubscribe token of an email: (tenant, user, type or `*`), HMAC-SHA256 with a
 * key only the email consumer and the unsubscribe route hold. No expiry: an old email's link keeps
 * working (the action it allows is harmless and idempotent), and no login is needed to use it.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import * as z from 'zod';
import { IDENTIFIER_PATTERN } from '../model/keys.js';

export const ALL_TYPES = '*';

const tokenPayloadSchema = z
  .object({ v: z.literal(1), t: z.string().regex(IDENTIFIER_PATTERN), u: z.string().regex(IDENTIFIER_PATTERN), type: z.string().min(1).max(128) })
  .strict();

export interface UnsubscribeGrant {
  tenantId: string;
  userId: string;
  /** A notification type, or `*` for every type. */
  type: string;
}

const macOf = (payload: string, secret: string) => createHmac('sha256', secret).update(`unsubscribe\u0000${payload}`).digest();

export function unsubscribeToken(grant: UnsubscribeGrant, secret: string): string {
  const payload = Buffer.from(JSON.stringify({ v: 1, t: grant.tenantId, u: grant.userId, type: grant.type })).toString('base64url');
  return `${payload}.${macOf(payload, secret).toString('base64url')}`;
}

/** The grant of a well-formed token with a valid signature; undefined for anything else. */
export function verifyUnsubscribeToken(token: string, secret: string): UnsubscribeGrant | undefined {
  if (token.length > 2_048) return undefined;
  const [payload, signature, extra] = token.split('.');
  if (!payload || !signature || extra !== undefined) return undefined;
  const expected = macOf(payload, secret);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  const parsed = tokenPayloadSchema.safeParse(decoded);
  return parsed.success ? { tenantId: parsed.data.t, userId: parsed.data.u, type: parsed.data.type } : undefined;
}
