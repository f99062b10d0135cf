/**
 * The local identity provider: an ES256 key pair kept under DATA_DIR, so tokens printed by
 * `npm run token` are accepted by a runtime started on the same data directory.
 */
import { randomBytes, randomUUID, createHmac } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SignJWT, exportJWK, generateKeyPair, importJWK, type JSONWebKeySet, type JWK } from 'jose';
import { DEFAULT_TENANT_CLAIM } from '../adapters/jwt-verifier.js';

export const LOCAL_ISSUER = 'urn:serverless-notifications:local';
export const LOCAL_AUDIENCE = 'notifications';

interface StoredSecrets {
  privateJwk: JWK;
  publicJwk: JWK;
  cursorSecret: string;
  /** Absent in data directories created before delivery jobs were signed: generated then. */
  deliveryJobSecret?: string;
}

export interface LocalSecrets {
  jwks: JSONWebKeySet;
  cursorSecret: string;
  deliveryJobSecret: string;
  /** The snooze comebacks' key (REST write signs, urgent delivery verifies), derived from the job key: one secret file per DATA_DIR, a different key per purpose. */
  snoozeJobSecret: string;
  issueToken(claims: { tenantId: string; userId: string; ttlSeconds?: number; expiresAt?: number; email?: string; phoneNumber?: string }): Promise<string>;
}

async function loadOrCreate(dataDir: string): Promise<StoredSecrets> {
  const file = join(dataDir, 'local-secrets.json');
  try {
    return JSON.parse(await readFile(file, 'utf8')) as StoredSecrets;
  } catch {
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    const kid = randomUUID();
    const secrets: StoredSecrets = {
      privateJwk: { ...(await exportJWK(privateKey)), kid, alg: 'ES256' },
      publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' },
      cursorSecret: randomBytes(32).toString('base64url'),
      deliveryJobSecret: randomBytes(32).toString('base64url'),
    };
    await mkdir(dataDir, { recursive: true });
    // `wx`: if another process created it first, use theirs.
    await writeFile(file, JSON.stringify(secrets), { flag: 'wx', mode: 0o600 }).catch(async () => undefined);
    return JSON.parse(await readFile(file, 'utf8')) as StoredSecrets;
  }
}

async function addDeliveryJobSecret(dataDir: string, stored: StoredSecrets): Promise<string> {
  const deliveryJobSecret = randomBytes(32).toString('base64url');
  await writeFile(join(dataDir, 'local-secrets.json'), JSON.stringify({ ...stored, deliveryJobSecret }), { mode: 0o600 });
  return deliveryJobSecret;
}

/** The key of a data directory a runtime has started on; throws (creating nothing) when it has none. */
export async function readLocalSecrets(dataDir: string): Promise<LocalSecrets> {
  try {
    await readFile(join(dataDir, 'local-secrets.json'), 'utf8');
  } catch {
    throw new Error(`${dataDir} has no local signing key (local-secrets.json): no local runtime has started on it`);
  }
  return loadLocalSecrets(dataDir);
}

export async function loadLocalSecrets(dataDir: string): Promise<LocalSecrets> {
  const stored = await loadOrCreate(dataDir);
  const privateKey = await importJWK(stored.privateJwk, 'ES256');
  const deliveryJobSecret = stored.deliveryJobSecret ?? (await addDeliveryJobSecret(dataDir, stored));
  return {
    jwks: { keys: [stored.publicJwk] },
    cursorSecret: stored.cursorSecret,
    deliveryJobSecret,
    snoozeJobSecret: createHmac('sha256', deliveryJobSecret).update('snooze-comebacks').digest('base64url'),
    async issueToken({ tenantId, userId, ttlSeconds = 3600, expiresAt, email, phoneNumber }) {
      const now = Math.floor(Date.now() / 1000);
      // A local identity provider "verified" the address it issues (the email channel sends there).
      // And the phone number (the SMS channel sends there).
      return new SignJWT({ [DEFAULT_TENANT_CLAIM]: tenantId, ...(email ? { email, email_verified: true } : {}), ...(phoneNumber ? { phone_number: phoneNumber, phone_number_verified: true } : {}) })
        .setProtectedHeader({ alg: 'ES256', kid: stored.privateJwk.kid })
        .setIssuer(LOCAL_ISSUER)
        .setAudience(LOCAL_AUDIENCE)
        .setSubject(userId)
        .setIssuedAt(now)
        .setExpirationTime(expiresAt ?? now + ttlSeconds)
        .sign(privateKey);
    },
  };
}
