/**
 * `npm run audit -- verify`: checks the audit trail's hash chains (a changed, dropped, reordered or
 * inserted record is reported with its file and line) and prints each stream's newest record.
 * `npm run audit -- why --tenant <t> --user <u> --event <eventId>`: what happened to that user with
 * that event, from the audit trail alone (and, after an erasure, that the user was erased).
 * Locally they read DATA_DIR/audit (why also needs the running runtime for the salts); on AWS give
 * `--bucket <archive bucket> [--prefix <p>]` (and for why `--key-arn <KMS HMAC key> --table <idempotency table>`).
 */
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ChainVerifier, type AuditLine, type VerifyReport } from '../core/audit/chain.js';
import { WhyCollector, formatWhy, type WhyAnswer, type WhyQuery } from '../core/audit/why.js';
import { localSettingsFromEnv } from '../local/settings.js';
import { awsAuditAccess, localArchiveReader, localAuditAccess, s3ArchiveReader, type AuditAccess } from './audit-access.js';
import { awsTarget, localTarget, parseSubject } from './targets.js';

export async function verifyAuditTrail(lines: AsyncIterable<AuditLine>, options: { tolerateDuplicates: boolean } = { tolerateDuplicates: false }): Promise<VerifyReport> {
  const verifier = new ChainVerifier(options);
  for await (const line of lines) verifier.add(line);
  return verifier.finish();
}

export function formatVerifyReport(report: VerifyReport): string {
  const lines = [`${report.ok ? 'OK' : 'FAILED'}: ${report.records} records in ${report.segments} segments (${report.lines} lines)${report.duplicates > 0 ? `, ${report.duplicates} duplicate copies` : ''}`];
  for (const problem of report.problems) lines.push(`  ${problem.source}:${problem.line}: ${problem.message}`);
  for (const warning of report.warnings) lines.push(`  warning ${warning.source}:${warning.line}: ${warning.message}`);
  if (report.heads.length > 0) lines.push('newest record per stream (compare with a copy kept elsewhere):');
  for (const head of report.heads) lines.push(`  ${head.stream}  segment ${head.segment} seq ${head.seq}  ${head.hash}  ${head.at}`);
  return lines.join('\n');
}

export interface WhyResult extends WhyAnswer {
  /** Verification problems met while reading (records that fail their check are not used). */
  problems: number;
}

/** Reads the archive once: the chain is checked on the way and only records that pass it answer. */
export async function auditWhy(access: Pick<AuditAccess, 'lines' | 'keys' | 'salts' | 'tolerateDuplicates'>, query: WhyQuery): Promise<WhyResult> {
  const collector = new WhyCollector(query, await access.keys.tenantKey(query.tenantId), await access.salts.findSalt(query.tenantId, query.userId));
  const verifier = new ChainVerifier({ tolerateDuplicates: access.tolerateDuplicates });
  for await (const line of access.lines()) {
    const record = verifier.add(line);
    if (record) collector.add(record);
  }
  return { ...collector.answer(), problems: verifier.finish().problems.length };
}

async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  const { values } = parseArgs({
    args: rest,
    options: {
      tenant: { type: 'string' },
      user: { type: 'string' },
      event: { type: 'string' },
      json: { type: 'boolean', default: false },
      bucket: { type: 'string' },
      prefix: { type: 'string' },
      'key-arn': { type: 'string' },
      table: { type: 'string' },
      region: { type: 'string' },
    },
  });
  const usage =
    'usage: npm run --silent audit -- verify [--json] [--bucket <archive bucket> [--prefix <p>] [--region <r>]]\n' +
    '       npm run --silent audit -- why --tenant <t> --user <u> --event <eventId> [--json] [--bucket <b> [--prefix <p>] --key-arn <KMS HMAC key> --table <idempotency table> [--region <r>]]\n';
  if (command !== 'verify' && command !== 'why') {
    process.stderr.write(usage);
    process.exit(2);
  }
  const dataDir = localSettingsFromEnv().dataDir;
  if (command === 'verify') {
    const reader = values.bucket ? s3ArchiveReader({ bucket: values.bucket, prefix: values.prefix, region: values.region }) : localArchiveReader(dataDir);
    try {
      const report = await verifyAuditTrail(reader.lines(), { tolerateDuplicates: reader.tolerateDuplicates });
      process.stdout.write(`${values.json ? JSON.stringify(report, null, 2) : formatVerifyReport(report)}\n`);
      process.exitCode = report.ok ? 0 : 1;
    } finally {
      reader.destroy();
    }
    return;
  }
  if (!values.tenant || !values.user || !values.event) {
    process.stderr.write(usage);
    process.exit(2);
  }
  const subject = parseSubject(values);
  const target = values.bucket ? awsTarget({ ...(values.region ? { region: values.region } : {}), ...(values.table ? { table: values.table } : {}) }) : await localTarget(dataDir);
  const access = values.bucket ? awsAuditAccess({ bucket: values.bucket, prefix: values.prefix, keyArn: values['key-arn'], region: values.region }, target) : await localAuditAccess(dataDir, target);
  try {
    const query = { ...subject, eventId: values.event };
    const answer = await auditWhy(access, query);
    process.stdout.write(`${values.json ? JSON.stringify(answer, null, 2) : formatWhy(query, answer)}\n`);
    if (answer.problems > 0) process.stderr.write(`warning: the audit trail has ${answer.problems} verification problem(s); run npm run audit -- verify\n`);
  } finally {
    access.destroy();
    target.destroy();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
