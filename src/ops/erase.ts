/**
 * `npm run erase -- --tenant <t> --user <u>`: erases a user from every table (GDPR Art. 17) and
 * prints what it removed. Steps are bounded and checkpointed (Idempotency table), so a killed run
 * resumes where it stopped when started again, and a second run ends the same. Locally it works on
 * the running runtime of DATA_DIR; on AWS give `--tables` (and `--ws-endpoint`, `--schedule-group`).
 */
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ApiGatewayManagementApiClient } from '@aws-sdk/client-apigatewaymanagementapi';
import { connectionCloser } from '../adapters/connection-closer.js';
import { DEFAULT_ERASURE_GRACE_MS, DEFAULT_TOMBSTONE_TTL_DAYS } from '../core/privacy/privacy-jobs.js';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { DeleteEndpointCommand } from '@aws-sdk/client-sns';
import { UserEraser, type ScheduleStore, type UserEraserOptions } from '../adapters/dynamo/user-eraser.js';
import { EventBridgeScheduleStore } from '../adapters/scheduler/eventbridge-schedule-store.js';
import { totalRemoved, type ErasureReport, type ErasureSubject } from '../core/privacy/erasure.js';
import { DEFAULT_FEED_SHARDS } from '../core/model/feed-shards.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../local/embedded-dynamo.js';
import { localSettingsFromEnv } from '../local/settings.js';
import { eraseThroughJob } from './privacy-job-client.js';
import { awsTablesTarget, localTarget, parseNumberFlag, parseSubject, type OpsTarget } from './targets.js';
import { eraseFromAuditTrail, type AuditErasureOptions } from './audit-erasure.js';
import { auditErasureOptions } from './audit-access.js';

export { DEFAULT_ERASURE_GRACE_MS, DEFAULT_TOMBSTONE_TTL_DAYS } from '../core/privacy/privacy-jobs.js';
export { connectionCloser } from '../adapters/connection-closer.js';

export interface EraseOptions extends Partial<Omit<UserEraserOptions, 'client' | 'tables'>> {
  schedules?: ScheduleStore;
  /** The audit trail: the user's pseudonym salt is deleted and the erasure recorded (src/ops/audit-erasure.ts). */
  audit?: AuditErasureOptions;
}

/** Runs the erasure on `target` to the end. */
export async function eraseUser(target: OpsTarget, subject: ErasureSubject, options: EraseOptions = {}): Promise<ErasureReport> {
  if (!target.tables) throw new Error('erase needs every table name (--tables on AWS)');
  const management = target.managementEndpoint
    ? new ApiGatewayManagementApiClient({ endpoint: target.managementEndpoint, ...(target.kind === 'local' ? { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS } : {}) })
    : undefined;
  const { audit, ...eraserOptions } = options;
  try {
    const eraser = new UserEraser(
      {
        client: target.documentClient,
        tables: target.tables,
        feedShards: target.feedShards ?? DEFAULT_FEED_SHARDS,
        graceMs: DEFAULT_ERASURE_GRACE_MS,
        tombstoneTtlSeconds: DEFAULT_TOMBSTONE_TTL_DAYS * 86_400,
        ...(management ? { closeConnection: connectionCloser(management) } : {}),
        // DeleteEndpoint is idempotent (a gone endpoint answers OK, on SNS as in the stand-in).
        ...(target.sns ? { deletePushEndpoint: async (endpointArn: string) => void (await target.sns!.send(new DeleteEndpointCommand({ EndpointArn: endpointArn }))) } : {}),
        ...eraserOptions,
      },
      subject,
    );
    const report = await eraser.run();
    // Audit trail hook: after the tables (the grace period has passed), the salt goes and the erasure is recorded.
    if (audit) await eraseFromAuditTrail(audit, subject);
    return report;
  } finally {
    management?.destroy();
  }
}

/** Kept here for callers that imported it from the erase command. */
export { parseTables } from './targets.js';

export function formatErasureReport(subject: ErasureSubject, report: ErasureReport): string {
  const lines = Object.entries(report.removed)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([kind, count]) => `  ${kind.padEnd(36)} ${count}`);
  return [
    `erased ${subject.userId} (tenant ${subject.tenantId}): ${totalRemoved(report)} items in ${report.steps} steps`,
    ...lines,
    `  push endpoints deleted               ${report.pushEndpointsDeleted ?? 0}`,
    `  connections closed                   ${report.connectionsClosed}`,
    `  follower counts lowered              ${report.followCountsLowered}`,
    `  schedules deleted                    ${report.schedulesDeleted}`,
    ...(report.schedulesKeptNamingUser ? [`  schedules kept (a recipient among others; dropped when they fire) ${report.schedulesKeptNamingUser}`] : []),
    ...Object.entries(report.unknownKept ?? {}).map(([table, count]) => `  kept, unknown kind: ${table.padEnd(18)} ${count} (see the WARN lines)`),
    ...(report.schedulesUnknown ? [`  kept, schedules of unknown kind      ${report.schedulesUnknown} (see the WARN lines)`] : []),
  ].join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      tenant: { type: 'string' },
      user: { type: 'string' },
      json: { type: 'boolean', default: false },
      'grace-ms': { type: 'string' },
      'step-budget': { type: 'string' },
      tables: { type: 'string' },
      region: { type: 'string' },
      'ws-endpoint': { type: 'string' },
      'schedule-group': { type: 'string' },
      'feed-shards': { type: 'string' },
      'tombstone-ttl-days': { type: 'string' },
      'job-queue': { type: 'string' },
      direct: { type: 'boolean', default: false },
      'audit-stream': { type: 'string' },
      'audit-key-arn': { type: 'string' },
    },
  });
  if (!values.tenant || !values.user) {
    process.stderr.write(
      'usage: npm run --silent erase -- --tenant <tenant> --user <user> [--json]                      (starts the job and follows it: local runtime, or AWS with --job-queue and --tables)\n' +
        '       [--job-queue <PrivacyJobQueueUrl>] [--tables inbox=<t>,readMarks=<t>,connections=<t>,graph=<t>,idempotency=<t>] [--region <r>] [--audit-stream <Firehose stream> --audit-key-arn <KMS HMAC key>]\n' +
        '       --direct [--grace-ms <ms>] [--step-budget <n>] [--tombstone-ttl-days <days>] [--ws-endpoint <@connections url>] [--schedule-group <group>] [--feed-shards <n>]   (runs the engine here, with your credentials)\n',
    );
    process.exit(2);
  }
  const subject = parseSubject(values);
  const region = values.region ? { region: values.region } : {};
  const target = values.tables
    ? awsTablesTarget({ tables: values.tables, region: values.region, managementEndpoint: values['ws-endpoint'], ...(values['feed-shards'] !== undefined ? { feedShards: parseNumberFlag('feed-shards', values['feed-shards'], 1) } : {}) })
    : await localTarget(localSettingsFromEnv().dataDir);
  if (values['job-queue']) target.privacyJobQueueUrl = values['job-queue'];
  // The job (deployed on AWS, in the runtime locally) unless --direct runs the engine here with the operator's credentials.
  if (!values.direct && target.privacyJobQueueUrl) {
    try {
      const { jobId, report } = await eraseThroughJob(target, subject, { onProgress: (line) => process.stderr.write(`${line}\n`) });
      // The audit trail's part (salt forgotten, erasure recorded), after the job as after a direct run.
      const audit = await auditErasureOptions(target, { dataDir: localSettingsFromEnv().dataDir, streamName: values['audit-stream'], keyArn: values['audit-key-arn'], region: values.region });
      if (audit) await eraseFromAuditTrail(audit, subject);
      process.stdout.write(`${values.json ? JSON.stringify({ ...subject, jobId, ...report }, null, 2) : formatErasureReport(subject, report)}\n`);
    } finally {
      target.destroy();
    }
    return;
  }
  const scheduler = values['schedule-group'] ? new SchedulerClient(region) : undefined;
  try {
    const report = await eraseUser(target, subject, {
      ...(values['grace-ms'] !== undefined ? { graceMs: parseNumberFlag('grace-ms', values['grace-ms']) } : target.kind === 'local' ? { graceMs: localSettingsFromEnv().functionTimeoutMs ?? 5_000 } : {}),
      ...(values['step-budget'] !== undefined ? { stepBudget: parseNumberFlag('step-budget', values['step-budget'], 1) } : {}),
      ...(values['tombstone-ttl-days'] !== undefined ? { tombstoneTtlSeconds: parseNumberFlag('tombstone-ttl-days', values['tombstone-ttl-days'], 1) * 86_400 } : {}),
      ...(scheduler && values['schedule-group'] ? { schedules: new EventBridgeScheduleStore(scheduler, values['schedule-group']) } : {}),
      audit: await auditErasureOptions(target, { dataDir: localSettingsFromEnv().dataDir, streamName: values['audit-stream'], keyArn: values['audit-key-arn'], region: values.region }),
    });
    process.stdout.write(`${values.json ? JSON.stringify({ ...subject, ...report }, null, 2) : formatErasureReport(subject, report)}\n`);
    if (target.kind === 'local') process.stderr.write('note: schedules of the local runtime live in its process; the in-process API (UserEraser with runtime.scheduler) deletes them\n');
  } finally {
    scheduler?.destroy();
    target.destroy();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
