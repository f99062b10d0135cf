/**
 * The credentials of the local SQS endpoint: generated once per data directory and kept there
 * (mode 0600, like the signing key), so only the runtime's own SQS clients, which are built with
 * them, can sign a request the endpoint accepts. Without a directory (in-memory queues) they are
 * random per process.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface LocalSqsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
}

export const LOCAL_SQS_CREDENTIALS_FILE = 'local-sqs-credentials.json';

const generate = (): LocalSqsCredentials => ({
  accessKeyId: `LOCALSQS${randomBytes(6).toString('hex').toUpperCase()}`,
  secretAccessKey: randomBytes(30).toString('base64url'),
});

const isCredentials = (value: unknown): value is LocalSqsCredentials =>
  typeof value === 'object' && value !== null && typeof (value as LocalSqsCredentials).accessKeyId === 'string' && typeof (value as LocalSqsCredentials).secretAccessKey === 'string';

/** Reads `<dir>/local-sqs-credentials.json`, creating it (and `dir`) on first use. */
export function loadLocalSqsCredentials(dir?: string): LocalSqsCredentials {
  if (dir === undefined) return generate();
  const file = join(dir, LOCAL_SQS_CREDENTIALS_FILE);
  const read = (): LocalSqsCredentials | undefined => {
    try {
      const stored: unknown = JSON.parse(readFileSync(file, 'utf8'));
      return isCredentials(stored) ? stored : undefined;
    } catch {
      return undefined;
    }
  };
  const existing = read();
  if (existing) return existing;
  mkdirSync(dir, { recursive: true });
  try {
    // `wx`: if another process created it first, use theirs.
    writeFileSync(file, JSON.stringify(generate()), { flag: 'wx', mode: 0o600 });
  } catch {
    // Created concurrently (or unreadable before): read what is there.
  }
  const created = read();
  if (!created) throw new Error(`${file} is not a credentials file; delete it to generate new local SQS credentials`);
  return created;
}
