/** The privacy job function (erase and export, GDPR Art. 17 and 15): its config and its composition. */
import { Logger } from '@aws-lambda-powertools/logger';
import { DeleteEndpointCommand, SNSClient } from '@aws-sdk/client-sns';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { S3Client } from '@aws-sdk/client-s3';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { ExportJobs } from '../adapters/dynamo/export-jobs.js';
import { UserEraser, type ScheduleStore } from '../adapters/dynamo/user-eraser.js';
import { UserExporter } from '../adapters/dynamo/user-exporter.js';
import { S3ExportStore } from '../adapters/s3/s3-export-store.js';
import { EventBridgeScheduleStore } from '../adapters/scheduler/eventbridge-schedule-store.js';
import { connectionCloser } from '../adapters/connection-closer.js';
import { DEFAULT_FEED_SHARDS } from '../core/model/feed-shards.js';
import type { ExportStore } from '../core/ports/export-store.js';
import { DEFAULT_ERASURE_GRACE_MS, DEFAULT_TOMBSTONE_TTL_DAYS, exportObjectKey, exportPrefixOf } from '../core/privacy/privacy-jobs.js';
import type { ErasureSubject } from '../core/privacy/erasure.js';
import type { Env } from '../env.js';
import { createPrivacyJobHandler } from '../handlers/privacy-job-handler.js';
import { TABLE_NAMES, tableSpecs, type TableName } from '../table-specs.js';
import { integer, optionalString, parseEnv, required, url } from './config-parsing.js';
import { managementClient } from './parts-live.js';
import { sqsClient } from './parts-queues.js';
import { clientOptions, createParts, documentClient, type Parts } from './parts.js';

export interface PrivacyJobConfig {
  tables: Record<TableName, string>;
  feedShards: number;
  queueUrl: string;
  graceMs: number;
  tombstoneTtlDays: number;
  /** The WebSocket API's `@connections` endpoint: the erasure closes the user's connections. */
  managementEndpoint?: string;
  /** EventBridge Scheduler group: the erasure deletes the user's pending schedules by name. */
  scheduleGroupName?: string;
  /** The export bucket (AWS); the local runtime passes its file store instead. */
  exportBucket?: string;
}

export function privacyJobConfigFromEnv(env: Env): PrivacyJobConfig {
  const tableShape = Object.fromEntries(TABLE_NAMES.map((table) => [tableSpecs[table].envVar, required]));
  const parsed = parseEnv(
    'privacy-job',
    {
      ...tableShape,
      FEED_SHARDS: integer(DEFAULT_FEED_SHARDS, 1),
      PRIVACY_JOB_QUEUE_URL: required,
      EXPORT_BUCKET: required,
      ERASURE_GRACE_MS: integer(DEFAULT_ERASURE_GRACE_MS, 0),
      TOMBSTONE_TTL_DAYS: integer(DEFAULT_TOMBSTONE_TTL_DAYS, 1),
      WS_MANAGEMENT_ENDPOINT: url.optional(),
      SCHEDULE_GROUP_NAME: optionalString,
    },
    env,
  ) as Record<string, unknown>;
  return {
    tables: Object.fromEntries(TABLE_NAMES.map((table) => [table, String(parsed[tableSpecs[table].envVar])])) as Record<TableName, string>,
    feedShards: Number(parsed.FEED_SHARDS),
    queueUrl: String(parsed.PRIVACY_JOB_QUEUE_URL),
    graceMs: Number(parsed.ERASURE_GRACE_MS),
    tombstoneTtlDays: Number(parsed.TOMBSTONE_TTL_DAYS),
    exportBucket: String(parsed.EXPORT_BUCKET),
    ...(typeof parsed.WS_MANAGEMENT_ENDPOINT === 'string' ? { managementEndpoint: parsed.WS_MANAGEMENT_ENDPOINT } : {}),
    ...(typeof parsed.SCHEDULE_GROUP_NAME === 'string' ? { scheduleGroupName: parsed.SCHEDULE_GROUP_NAME } : {}),
  };
}

/** What the local runtime hands in instead of AWS clients: its scheduler, its export files and its SNS stand-in. */
export interface PrivacyJobProviders {
  schedules?: ScheduleStore;
  exports?: ExportStore;
  /** The SNS endpoint (the local stand-in's URL); AWS: the regional default. */
  snsEndpoint?: string;
}

export function composePrivacyJob(parts: Parts, config: PrivacyJobConfig, providers: PrivacyJobProviders = {}) {
  const client = documentClient(parts);
  const sns = new SNSClient({ ...clientOptions(parts), ...(providers.snsEndpoint ? { endpoint: providers.snsEndpoint, ...(parts.aws.sqsCredentials ? { credentials: parts.aws.sqsCredentials } : {}) } : {}) });
  const exports: ExportStore | undefined = providers.exports ?? (config.exportBucket ? new S3ExportStore(new S3Client(clientOptions(parts)), config.exportBucket) : undefined);
  if (!exports) throw new Error('privacy-job: an export store is required (EXPORT_BUCKET)');
  const schedules = providers.schedules ?? (config.scheduleGroupName ? new EventBridgeScheduleStore(new SchedulerClient(clientOptions(parts)), config.scheduleGroupName) : undefined);
  const closeConnection = config.managementEndpoint ? connectionCloser(managementClient(parts, config.managementEndpoint)) : undefined;
  const jobs = new ExportJobs(client, config.tables.idempotency);
  const eraser = (subject: ErasureSubject) =>
    new UserEraser(
      {
        client,
        tables: config.tables,
        feedShards: config.feedShards,
        graceMs: config.graceMs,
        tombstoneTtlSeconds: config.tombstoneTtlDays * 86_400,
        nowMs: () => parts.clock.nowMs(),
        warn: (message, context) => parts.logger.warn(message, context),
        // DeleteEndpoint is idempotent (a gone endpoint answers OK, on SNS as in the stand-in).
        deletePushEndpoint: async (endpointArn) => void (await sns.send(new DeleteEndpointCommand({ EndpointArn: endpointArn }))),
        exports: { deleteExportsOf: (subject) => exports.deletePrefix(exportPrefixOf(subject)) },
        ...(closeConnection ? { closeConnection } : {}),
        ...(schedules ? { schedules } : {}),
      },
      subject,
    );
  return createPrivacyJobHandler({
    logger: parts.logger,
    eraseStep: (subject) => eraser(subject).step(),
    async exportUser(subject, jobId) {
      const startedAtMs = parts.clock.nowMs();
      const objectKey = exportObjectKey(subject, jobId);
      await jobs.save(subject.tenantId, jobId, { status: 'running', objectKey, startedAtMs });
      const chunks: string[] = [];
      await new UserExporter({ client, tables: config.tables, feedShards: config.feedShards, nowMs: () => parts.clock.nowMs() }).export(subject, (text) => void chunks.push(text));
      const body = chunks.join('');
      await exports.put(objectKey, body);
      const bytes = Buffer.byteLength(body);
      await jobs.save(subject.tenantId, jobId, { status: 'done', objectKey, startedAtMs, doneAtMs: parts.clock.nowMs(), bytes });
      return { bytes };
    },
    async requeue(job, delaySeconds) {
      await sqsClient(parts).send(new SendMessageCommand({ QueueUrl: config.queueUrl, MessageBody: JSON.stringify(job), DelaySeconds: delaySeconds }));
    },
  });
}

export function privacyJobFunction(env: Env) {
  return composePrivacyJob(createParts({ logger: new Logger({ serviceName: 'privacy-job' }) }), privacyJobConfigFromEnv(env));
}
