/**
 * JWT verification for `jwt` auth mode (bring your own identity provider, and the local runtime).
 * Tenant and user come only from verified claims; `alg: none` and unlisted algorithms are refused.
 */
import { createLocalJWKSet, createRemoteJWKSet, jwtVerify, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import { Unauthorized } from '../core/model/errors.js';
import { identityFromClaims } from '../core/model/claims.js';
import type { UserRef } from '../core/model/user.js';
import { E164_PATTERN } from '../contract/channel-schemas.js';

/**
 * `email`: the token's `email` claim, only when `email_verified` is true; `phoneNumber`: its
 * `phone_number` (E.164), only when `phone_number_verified` is true (the channels send there).
 */
export type VerifiedUser = UserRef & { email?: string; phoneNumber?: string };

export interface TokenVerifier {
  verify(token: string): Promise<VerifiedUser>;
}

/** The verified address of the claims, if the identity provider says it verified one. */
export function verifiedEmailOf(claims: Record<string, unknown>): string | undefined {
  const verified = claims.email_verified === true || claims.email_verified === 'true';
  return verified && typeof claims.email === 'string' && claims.email.length <= 254 ? claims.email : undefined;
}

/**
 * The verified phone number of the claims (OpenID Connect `phone_number` + `phone_number_verified`,
 * which Cognito sets after its own SMS code check), in E.164; anything else is no number.
 */
export function verifiedPhoneOf(claims: Record<string, unknown>): string | undefined {
  const verified = claims.phone_number_verified === true || claims.phone_number_verified === 'true';
  return verified && typeof claims.phone_number === 'string' && E164_PATTERN.test(claims.phone_number) ? claims.phone_number : undefined;
}

export interface JwtVerifierConfig {
  issuer: string;
  audience: string;
  /** A JWKS URL (remote IdP) or the key set itself (local runtime). */
  jwks: URL | JSONWebKeySet;
  /**
   * Claim that carries the tenant id: a top-level name (`custom:tenant`, `https://example.com/tenant`)
   * or a dotted path into nested claims (`org.id`). Ignored when `fixedTenant` is set.
   */
  tenantClaim: string;
  /** Single-tenant apps: every verified token belongs to this tenant, whatever its claims. */
  fixedTenant?: string;
  algorithms?: string[];
}

export const DEFAULT_TENANT_CLAIM = 'custom:tenant';

export function createJwtVerifier(config: JwtVerifierConfig): TokenVerifier {
  const getKey: JWTVerifyGetKey = config.jwks instanceof URL ? createRemoteJWKSet(config.jwks) : createLocalJWKSet(config.jwks);
  const algorithms = config.algorithms ?? ['ES256', 'RS256'];
  return {
    async verify(token: string): Promise<VerifiedUser> {
      let payload: Record<string, unknown>;
      try {
        ({ payload } = await jwtVerify(token, getKey, { issuer: config.issuer, audience: config.audience, algorithms, requiredClaims: ['exp', 'sub'] }));
      } catch (error) {
        throw new Unauthorized(`invalid token: ${(error as Error).message}`);
      }
      const email = verifiedEmailOf(payload);
      const phoneNumber = verifiedPhoneOf(payload);
      return { ...identityFromClaims(payload, config), ...(email ? { email } : {}), ...(phoneNumber ? { phoneNumber } : {}) };
    },
  };
}

/**
 * Where a route's token travels: `header` (`Authorization: Bearer <t>`, REST) or `query` (the `token`
 * parameter, WebSocket $connect, where browsers cannot set headers). Only that place is read: it is
 * the identity source API Gateway caches the authorizer's answer by, and a token in a REST URL would
 * end up in logs and browser history.
 */
export type TokenSource = 'header' | 'query';

export function extractToken(source: TokenSource, headers: Record<string, string | undefined> | null | undefined, query: Record<string, string | undefined> | null | undefined): string | undefined {
  if (source === 'query') return query?.token || undefined;
  const header = Object.entries(headers ?? {}).find(([name]) => name.toLowerCase() === 'authorization')?.[1];
  return header?.match(/^Bearer\s+(\S+)$/i)?.[1];
}
