/** Tokens the local runtime must refuse: unsigned (`alg: none`) and signed by a key it does not trust. */
import { SignJWT, generateKeyPair } from 'jose';
import { DEFAULT_TENANT_CLAIM } from '../../src/adapters/jwt-verifier.js';
import { LOCAL_AUDIENCE, LOCAL_ISSUER } from '../../src/local/signing-key.js';
import type { UserRef } from '../../src/core/model/user.js';

function claims(user: UserRef) {
  const now = Math.floor(Date.now() / 1000);
  return { [DEFAULT_TENANT_CLAIM]: user.tenantId, sub: user.userId, iss: LOCAL_ISSUER, aud: LOCAL_AUDIENCE, iat: now, exp: now + 3600 };
}

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A well-formed JWT with `alg: none` and an empty signature. */
export function unsignedToken(user: UserRef): string {
  return `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url(claims(user))}.`;
}

/** Valid claims signed with a fresh ES256 key (optionally claiming the runtime's key id). */
export async function tokenFromForeignKey(user: UserRef, kid?: string): Promise<string> {
  const { privateKey } = await generateKeyPair('ES256');
  const { iss, aud, exp, iat, sub, ...rest } = claims(user);
  return new SignJWT(rest)
    .setProtectedHeader(kid === undefined ? { alg: 'ES256' } : { alg: 'ES256', kid })
    .setIssuer(iss)
    .setAudience(aud)
    .setSubject(sub)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .sign(privateKey);
}

/** The payload of a token with one claim changed, keeping the original header and signature. */
export function withTamperedClaims(token: string, change: Record<string, unknown>): string {
  const [header, payload, signature] = token.split('.') as [string, string, string];
  const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
  return `${header}.${base64url({ ...decoded, ...change })}.${signature}`;
}
