/** Composition of the JWT authorizer (`jwt` auth mode): REST requests and WebSocket $connect. */
import { Logger } from '@aws-lambda-powertools/logger';
import { DEFAULT_TENANT_CLAIM, createJwtVerifier, type TokenVerifier } from '../adapters/jwt-verifier.js';
import { createAuthorizerHandler } from '../handlers/authorizer-handler.js';
import { authorizerConfigFromEnv, type Env } from './config.js';
import type { Parts } from './parts.js';

/** The local runtime passes its own verifier (its signing key set, not a JWKS URL). */
export function composeAuthorizer(parts: Pick<Parts, 'logger'>, verifier: TokenVerifier) {
  return createAuthorizerHandler(verifier, parts.logger);
}

export function authorizerFunction(env: Env) {
  const config = authorizerConfigFromEnv(env);
  const verifier = createJwtVerifier({ issuer: config.issuer, audience: config.audience, jwks: new URL(config.jwksUrl), tenantClaim: config.tenantClaim ?? DEFAULT_TENANT_CLAIM, ...(config.fixedTenant ? { fixedTenant: config.fixedTenant } : {}) });
  return composeAuthorizer({ logger: new Logger({ serviceName: 'authorizer' }) }, verifier);
}
