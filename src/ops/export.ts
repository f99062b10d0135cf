/**
 * `npm run export -- --tenant <t> --user <u> [--out file.json]`: everything stored about a user
 * (GDPR Art. 15) as one JSON document (src/contract/user-export.ts), streamed to stdout or a file.
 * Locally it reads the running runtime of DATA_DIR; on AWS give `--tables` as for `npm run erase`.
 */
import { createWriteStream } from 'node:fs';
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { once } from 'node:events';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { Writable } from 'node:stream';
import { S3Client } from '@aws-sdk/client-s3';
import { UserExporter } from '../adapters/dynamo/user-exporter.js';
import { exportLink } from '../adapters/s3/s3-export-store.js';
import { FileExportStore } from '../local/file-export-store.js';
import { exportThroughJob } from './privacy-job-client.js';
import type { ErasureSubject } from '../core/privacy/erasure.js';
import { DEFAULT_FEED_SHARDS } from '../core/model/feed-shards.js';
import { localSettingsFromEnv } from '../local/settings.js';
import { awsTablesTarget, localTarget, parseSubject, type OpsTarget } from './targets.js';

/** How long the link to an export on AWS is valid. */
export const EXPORT_LINK_TTL_SECONDS = 900;

/** Streams the export of `subject` into `out`, respecting back-pressure. */
export async function exportUser(target: OpsTarget, subject: ErasureSubject, out: Writable): Promise<void> {
  if (!target.tables) throw new Error('export needs every table name (--tables on AWS)');
  const exporter = new UserExporter({ client: target.documentClient, tables: target.tables, feedShards: target.feedShards ?? DEFAULT_FEED_SHARDS });
  await exporter.export(subject, async (text) => {
    if (!out.write(text)) await once(out, 'drain');
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      tenant: { type: 'string' },
      user: { type: 'string' },
      out: { type: 'string' },
      tables: { type: 'string' },
      region: { type: 'string' },
      'job-queue': { type: 'string' },
      'export-bucket': { type: 'string' },
      direct: { type: 'boolean', default: false },
    },
  });
  if (!values.tenant || !values.user) {
    process.stderr.write(
      'usage: npm run --silent export -- --tenant <tenant> --user <user> [--out <file>]            (starts the job and follows it: local runtime,\n' +
        '       or AWS with --job-queue <PrivacyJobQueueUrl> --export-bucket <ExportBucketName> --tables ...: prints a 15-minute link)\n' +
        '       --direct [--tables inbox=<t>,readMarks=<t>,connections=<t>,graph=<t>,idempotency=<t> [--region <r>]]   (reads the tables here, with your credentials)\n',
    );
    process.exit(2);
  }
  const subject = parseSubject(values);
  const target = values.tables ? awsTablesTarget({ tables: values.tables, region: values.region }) : await localTarget(localSettingsFromEnv().dataDir);
  if (values['job-queue']) target.privacyJobQueueUrl = values['job-queue'];
  try {
    if (!values.direct && target.privacyJobQueueUrl) {
      const { jobId, record } = await exportThroughJob(target, subject, { onProgress: (line) => process.stderr.write(`${line}\n`) });
      if (target.kind === 'local') {
        // The local stand-in for the bucket: the file the job wrote (no presigned URL locally).
        const path = new FileExportStore(target.exportDir ?? join(localSettingsFromEnv().dataDir, 'exports')).pathOf(record.objectKey);
        if (values.out) await copyFile(path, values.out);
        else process.stdout.write(await readFile(path, 'utf8'));
        process.stderr.write(`export job ${jobId} done: ${record.bytes ?? 0} bytes${values.out ? ` in ${values.out}` : ''}\n`);
        return;
      }
      if (!values['export-bucket']) throw new Error('--export-bucket <ExportBucketName> is needed to link the export');
      const s3 = new S3Client(values.region ? { region: values.region } : {});
      try {
        const link = await exportLink(s3, values['export-bucket'], record.objectKey, EXPORT_LINK_TTL_SECONDS);
        if (values.out) {
          const answer = await fetch(link);
          if (!answer.ok) throw new Error(`download of the export failed: HTTP ${answer.status}`);
          await writeFile(values.out, Buffer.from(await answer.arrayBuffer()), { mode: 0o600 });
        }
        process.stdout.write(`${JSON.stringify({ jobId, bytes: record.bytes, link, expiresInSeconds: EXPORT_LINK_TTL_SECONDS })}\n`);
      } finally {
        s3.destroy();
      }
      return;
    }
    const out = values.out ? createWriteStream(values.out, { mode: 0o600 }) : process.stdout;
    try {
      await exportUser(target, subject, out);
      out.write('\n');
    } finally {
      if (out !== process.stdout) out.end();
    }
  } finally {
    target.destroy();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
