/**
 * The local stand-in of the KMS HMAC key: 32 random bytes in `DATA_DIR/audit/audit-key.json` (0600),
 * created on first use. A tenant's key is the same MAC KMS GenerateMac computes on AWS.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AuditKeys } from '../../core/audit/ports.js';
import { tenantKeyFromMaster } from '../../core/audit/pseudonyms.js';

export const LOCAL_AUDIT_KEY_FILE = 'audit-key.json';

export async function loadLocalAuditKeys(auditDir: string): Promise<AuditKeys> {
  const file = join(auditDir, LOCAL_AUDIT_KEY_FILE);
  await mkdir(auditDir, { recursive: true });
  // `wx`: a key is never replaced (it would unlink every record written so far).
  await writeFile(file, JSON.stringify({ master: randomBytes(32).toString('base64url') }), { flag: 'wx', mode: 0o600 }).catch(() => undefined);
  const { master } = JSON.parse(await readFile(file, 'utf8')) as { master: string };
  const key = Buffer.from(master, 'base64url');
  if (key.length !== 32) throw new Error(`${file}: the audit key must be 32 bytes`);
  return { tenantKey: async (tenantId) => tenantKeyFromMaster(key, tenantId) };
}
