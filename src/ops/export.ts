/**
 * `npm run export -- --tenant <t> --user <u> [--out file.json]`: everything stored about a user
 * (GDPR Art. 15) as one JSON document (src/contract/user-export.ts), streamed to stdout or a file.
 * Locally it reads the running runtime of DATA_DIR; on AWS give `--tables` as for `npm run erase`.
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { Writable } from 'node:stream';
import { UserExporter } from '../adapters/dynamo/user-exporter.js';
import type { ErasureSubject } from '../core/privacy/erasure.js';
import { DEFAULT_FEED_SHARDS } from '../core/model/feed-shards.js';
import { localSettingsFromEnv } from '../local/settings.js';
import { awsTablesTarget, localTarget, parseSubject, type OpsTarget } from './targets.js';

/** Streams the export of `subject` into `out`, respecting back-pressure. */
export async function exportUser(target: OpsTarget, subject: ErasureSubject, out: Writable): Promise<void> {
  if (!target.tables) throw new Error('export needs every table name (--tables on AWS)');
  const exporter = new UserExporter({ client: target.documentClient, tables: target.tables, feedShards: target.feedShards ?? DEFAULT_FEED_SHARDS });
  await exporter.export(subject, async (text) => {
    if (!out.write(text)) await once(out, 'drain');
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { tenant: { type: 'string' }, user: { type: 'string' }, out: { type: 'string' }, tables: { type: 'string' }, region: { type: 'string' } } });
  if (!values.tenant || !values.user) {
    process.stderr.write('usage: npm run --silent export -- --tenant <tenant> --user <user> [--out <file>] [--tables inbox=<t>,readMarks=<t>,connections=<t>,graph=<t>,idempotency=<t> [--region <r>]]\n');
    process.exit(2);
  }
  const subject = parseSubject(values);
  const target = values.tables
    ? awsTablesTarget({ tables: values.tables, region: values.region })
    : await localTarget(localSettingsFromEnv().dataDir);
  const out = values.out ? createWriteStream(values.out, { mode: 0o600 }) : process.stdout;
  try {
    await exportUser(target, subject, out);
    out.write('\n');
  } finally {
    if (out !== process.stdout) out.end();
    target.destroy();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
