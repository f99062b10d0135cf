/** The JWT authorizer (`jwt` auth mode) of REST requests and WebSocket $connect: its config and its composition. */
import { Logger } from '@aws-lambda-powertools/logger';
import { DEFAULT_TENANT_CLAIM, createJwtVerifier, type TokenVerifier } from '../adapters/jwt-verifier.js';
import type { Env } from '../env.js';
import { createAuthorizerHandler } from '../handlers/authorizer-handler.js';
import { optionalString, parseEnv, required, url } from './config-parsing.js';
import type { Parts } from './parts.js';

export interface AuthorizerConfig {
  issuer: string;
  audience: string;
  jwksUrl: string;
  tenantClaim?: string;
  /** Single-tenant apps: the tenant of every token. */
  fixedTenant?: string;
}

export function authorizerConfigFromEnv(env: Env): AuthorizerConfig {
  const parsed = parseEnv('authorizer', { JWT_ISSUER: required, JWT_AUDIENCE: required, JWKS_URL: url, TENANT_CLAIM: optionalString, FIXED_TENANT: optionalString }, env);
  return {
    issuer: parsed.JWT_ISSUER,
    audience: parsed.JWT_AUDIENCE,
    jwksUrl: parsed.JWKS_URL,
    ...(parsed.TENANT_CLAIM ? { tenantClaim: parsed.TENANT_CLAIM } : {}),
    ...(parsed.FIXED_TENANT ? { fixedTenant: parsed.FIXED_TENANT } : {}),
  };
}

/** The local runtime passes its own verifier (its signing key set, not a JWKS URL). */
export function composeAuthorizer(parts: Pick<Parts, 'logger'>, verifier: TokenVerifier) {
  return createAuthorizerHandler(verifier, parts.logger);
}

export function authorizerFunction(env: Env) {
  const config = authorizerConfigFromEnv(env);
  const verifier = createJwtVerifier({ issuer: config.issuer, audience: config.audience, jwks: new URL(config.jwksUrl), tenantClaim: config.tenantClaim ?? DEFAULT_TENANT_CLAIM, ...(config.fixedTenant ? { fixedTenant: config.fixedTenant } : {}) });
  return composeAuthorizer({ logger: new Logger({ serviceName: 'authorizer' }) }, verifier);
}
