/**
 * Any identity provider: the tenant comes from a top-level claim, a URL-named claim, a nested
 * claim path, or a fixed setting; the authorizer says at WARN why it refused a token.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { generateKeyPair, SignJWT, exportJWK } from 'jose';
import type { APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';
import { createJwtVerifier } from '../../src/adapters/jwt-verifier.js';
import { claimAt, identityFromClaims } from '../../src/core/model/claims.js';
import { Unauthorized } from '../../src/core/model/errors.js';
import { createAuthorizerHandler } from '../../src/handlers/authorizer-handler.js';

const ISSUER = 'https://idp.example.com/';
const AUDIENCE = 'notifications';

async function signer() {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256' };
  const sign = (claims: Record<string, unknown>, sub: string) =>
    new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).setIssuer(ISSUER).setAudience(AUDIENCE).setSubject(sub).setIssuedAt().setExpirationTime('5m').sign(privateKey);
  return { jwks: { keys: [jwk] }, sign };
}

describe('claimAt', () => {
  it('reads a top-level name first (URL-named claims contain dots), then a dotted path', () => {
    const claims = { 'https://example.com/tenant': 'acme', org: { id: 'org_42', name: 'x' }, 'custom:tenant': 't1' };
    expect(claimAt(claims, 'https://example.com/tenant')).toBe('acme');
    expect(claimAt(claims, 'org.id')).toBe('org_42');
    expect(claimAt(claims, 'custom:tenant')).toBe('t1');
    expect(claimAt(claims, 'org.missing.deeper')).toBeUndefined();
    expect(claimAt({ org: ['a'] }, 'org.0')).toBeUndefined();
  });

  it('refuses a tenant that is not a string and uses a fixed tenant whatever the claims say', () => {
    expect(() => identityFromClaims({ sub: 'auth0|1', org: { id: 42 } }, { tenantClaim: 'org.id' })).toThrow(Unauthorized);
    expect(identityFromClaims({ sub: 'auth0|1', org: { id: 'other' } }, { tenantClaim: 'org.id', fixedTenant: 'solo' })).toEqual({ tenantId: 'solo', userId: 'auth0|1' });
  });
});

describe('createJwtVerifier with other identity providers', () => {
  it('accepts Auth0 and Google subjects with the tenant in a namespaced or nested claim', async () => {
    // Prepare
    const { jwks, sign } = await signer();
    const namespaced = createJwtVerifier({ issuer: ISSUER, audience: AUDIENCE, jwks, tenantClaim: 'https://example.com/tenant' });
    const nested = createJwtVerifier({ issuer: ISSUER, audience: AUDIENCE, jwks, tenantClaim: 'org.id' });
    const single = createJwtVerifier({ issuer: ISSUER, audience: AUDIENCE, jwks, tenantClaim: 'custom:tenant', fixedTenant: 'main' });

    // Act
    const fromNamespaced = await namespaced.verify(await sign({ 'https://example.com/tenant': 'acme' }, 'auth0|64f1c2'));
    const fromNested = await nested.verify(await sign({ org: { id: 'org_2xyz' } }, 'google-oauth2|1234'));
    const fromFixed = await single.verify(await sign({}, 'user_2abc'));

    // Assess
    expect(fromNamespaced).toEqual({ tenantId: 'acme', userId: 'auth0|64f1c2' });
    expect(fromNested).toEqual({ tenantId: 'org_2xyz', userId: 'google-oauth2|1234' });
    expect(fromFixed).toEqual({ tenantId: 'main', userId: 'user_2abc' });
  });
});

describe('a refused token', () => {
  it('is logged at WARN with its reason', async () => {
    // Prepare
    const { jwks, sign } = await signer();
    const verifier = createJwtVerifier({ issuer: ISSUER, audience: AUDIENCE, jwks, tenantClaim: 'org.id' });
    const logger = new Logger({ logLevel: 'SILENT' });
    const warn = vi.spyOn(logger, 'warn');
    const authorize = createAuthorizerHandler(verifier, logger);
    const token = await sign({ org: {} }, 'auth0|1');
    const event = { type: 'REQUEST', methodArn: 'arn:aws:execute-api:eu-west-1:1:abc/v1/GET/notifications', headers: { authorization: `Bearer ${token}` }, queryStringParameters: null } as unknown as APIGatewayRequestAuthorizerEvent;

    // Act
    const answer = authorize(event);

    // Assess
    await expect(answer).rejects.toThrow('Unauthorized');
    expect(warn).toHaveBeenCalledWith('token refused', { reason: expect.stringContaining('org.id') });
  });
});
