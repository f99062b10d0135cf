/**
 * The REST API's authorizer result cache, as API Gateway keeps it (`resultsCacheTtl` 5 minutes,
 * identity source the Authorization header, lib/constructs/inbox-api.ts): a request whose header was
 * authorized a moment ago reuses that identity instead of invoking the authorizer again.
 *
 * Local difference, stricter than AWS: an entry also ends when its token expires (API Gateway keeps
 * answering a cached identity for the rest of the TTL even past the token's `exp`). Only successful
 * results are kept; a refused header is asked again each time. Bounded: the oldest entry goes first.
 */
import type { APIGatewayAuthorizerResult } from 'aws-lambda';

export const AUTHORIZER_CACHE_TTL_MS = 5 * 60_000;
const MAX_ENTRIES = 10_000;

export type AuthorizedIdentity = Pick<APIGatewayAuthorizerResult, 'principalId' | 'context'>;

/** The `exp` of a JWT's payload in ms (the authorizer verified it just before), or undefined. */
function tokenExpiryMs(authorization: string): number | undefined {
  const payload = authorization.replace(/^Bearer\s+/i, '').split('.')[1];
  if (!payload) return undefined;
  try {
    const exp = (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { exp?: unknown }).exp;
    return typeof exp === 'number' && Number.isFinite(exp) ? exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

export class AuthorizerResultCache {
  private readonly entries = new Map<string, { identity: AuthorizedIdentity; untilMs: number }>();

  constructor(private readonly nowMs: () => number = Date.now) {}

  get(authorization: string | undefined): AuthorizedIdentity | undefined {
    if (!authorization) return undefined;
    const entry = this.entries.get(authorization);
    if (!entry) return undefined;
    if (entry.untilMs > this.nowMs()) return entry.identity;
    this.entries.delete(authorization);
    return undefined;
  }

  /** Keeps a successful result until the TTL or the token's expiry, whichever comes first (no `exp`: not kept). */
  set(authorization: string | undefined, identity: AuthorizedIdentity): void {
    if (!authorization) return;
    const expiryMs = tokenExpiryMs(authorization);
    if (expiryMs === undefined) return;
    const untilMs = Math.min(this.nowMs() + AUTHORIZER_CACHE_TTL_MS, expiryMs);
    if (untilMs <= this.nowMs()) return;
    this.entries.delete(authorization);
    this.entries.set(authorization, { identity, untilMs });
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
  }
}
