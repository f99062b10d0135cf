/**
 * The keyed hashes that stand for identifiers in the audit trail (pure; no key store here).
 *
 * - A tenant key `K_t` = HMAC-SHA256(master, ["audit/v1/tenant", tenant]). On AWS the master is a KMS
 *   HMAC key that never leaves KMS (`GenerateMac` answers `K_t`); locally a 32-byte file under DATA_DIR.
 * - An event: `e1.` + HMAC(K_t, ["event", eventId]). Event-wide, so `audit why` finds an event's records.
 * - A user: a random 32-byte salt per (tenant, user), kept in the Idempotency table while the user
 *   exists; `k_u` = HMAC(K_t, ["user", salt, userId]); the pseudonym is `u1.` + HMAC(k_u, ["user"]).
 * - A notification: `n1.` + HMAC(k_u, ["notification", id]) (or K_t for an event-wide record). A
 *   notification id is derived from (tenant, type, event, recipient) without a key (src/core/ids.ts),
 *   so it must be hashed with the user's salt: in clear it would name the recipient to anyone who
 *   can guess them.
 * - An erasure: `x1.` + HMAC(K_t, ["erased", userId]), unsalted: a key holder can tell that a user
 *   was erased (and when), and can link that to nothing else.
 *
 * Erasing the salt makes `k_u` uncomputable: the user's records stay in the archive, intact and
 * verifiable, but neither the key holder nor anyone else can tell whose they are.
 * Inputs are JSON arrays, so every id (any Unicode, lone surrogates, separators) encodes unambiguously.
 */
import { createHmac, randomBytes } from 'node:crypto';

export const SALT_BYTES = 32;
/** Characters of base64url kept from a MAC: 24 = 144 bits. */
const REF_LENGTH = 24;

export type TenantKey = Buffer;

/** What the master key MACs to give a tenant's key (the same bytes go to KMS GenerateMac). */
export function tenantKeyMessage(tenantId: string): Buffer {
  return Buffer.from(JSON.stringify(['audit/v1/tenant', tenantId]), 'utf8');
}

/** A tenant's key from a master key held in memory (local runtime; KMS computes the same MAC on AWS). */
export function tenantKeyFromMaster(master: Buffer, tenantId: string): TenantKey {
  return createHmac('sha256', master).update(tenantKeyMessage(tenantId)).digest();
}

function mac(key: Buffer, parts: readonly string[]): Buffer {
  return createHmac('sha256', key).update(JSON.stringify(parts), 'utf8').digest();
}

const ref = (prefix: string, digest: Buffer) => `${prefix}1.${digest.toString('base64url').slice(0, REF_LENGTH)}`;

export function eventRef(tenantKey: TenantKey, eventId: string): string {
  return ref('e', mac(tenantKey, ['event', eventId]));
}

/** The per-user key: computable only with the tenant key AND the user's salt. */
export function userKey(tenantKey: TenantKey, salt: Buffer, userId: string): Buffer {
  return mac(tenantKey, ['user', salt.toString('base64url'), userId]);
}

export function userRef(key: Buffer): string {
  return ref('u', mac(key, ['user']));
}

/** `key`: the user's key for a recipient's record, the tenant key for an event-wide one. */
export function notificationRef(key: Buffer, notificationId: string): string {
  return ref('n', mac(key, ['notification', notificationId]));
}

export function erasureMarker(tenantKey: TenantKey, userId: string): string {
  return ref('x', mac(tenantKey, ['erased', userId]));
}

export function newSalt(): Buffer {
  return randomBytes(SALT_BYTES);
}
