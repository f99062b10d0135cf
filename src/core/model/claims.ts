/** Tenant and user from verified token claims, for any identity provider's claim layout. */
import { Unauthorized } from './errors.js';
import { IDENTIFIER_PATTERN } from './keys.js';
import type { UserRef } from './user.js';

export interface TenancyRule {
  /** A top-level claim name or a dotted path into nested claims. */
  tenantClaim: string;
  /** Single-tenant apps: the tenant of every token. */
  fixedTenant?: string;
}

/**
 * A claim by name, or else by dotted path (`org.id`): names with dots that exist at the top level
 * (`https://example.com/tenant`) win over a path.
 */
export function claimAt(claims: Record<string, unknown>, path: string): unknown {
  if (path in claims) return claims[path];
  let value: unknown = claims;
  for (const name of path.split('.')) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[name];
  }
  return value;
}

/** Tenant and user of verified claims, or Unauthorized saying which claim is missing or unusable. */
export function identityFromClaims(claims: Record<string, unknown>, tenancy: TenancyRule): UserRef {
  const tenantId = tenancy.fixedTenant ?? claimAt(claims, tenancy.tenantClaim);
  const userId = claims.sub;
  if (typeof tenantId !== 'string' || !IDENTIFIER_PATTERN.test(tenantId)) throw new Unauthorized(`token has no valid ${tenancy.tenantClaim} claim (a string of 1 to 256 characters)`);
  if (typeof userId !== 'string' || !IDENTIFIER_PATTERN.test(userId)) throw new Unauthorized('token has no valid sub claim (a string of 1 to 256 characters)');
  return { tenantId, userId };
}

