/**
 * The audit trail of a deployed function: Firehose to the Object Lock bucket (sink), the backlog SQS
 * queue, the KMS HMAC key of the pseudonyms and the salts in the Idempotency table. On when the CDK
 * app sets AUDIT_STREAM_NAME, AUDIT_KEY_ARN and AUDIT_BACKLOG_QUEUE_URL (all three, or none: off).
 * Each container is a stream of its own: `<function name>/<random id>`.
 */
import { randomBytes } from 'node:crypto';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { FirehoseClient } from '@aws-sdk/client-firehose';
import { KMSClient } from '@aws-sdk/client-kms';
import * as z from 'zod';
import { FirehoseAuditSink } from '../../adapters/audit/firehose-sink.js';
import { KmsAuditKeys } from '../../adapters/audit/kms-keys.js';
import { SqsAuditBacklog } from '../../adapters/audit/sqs-backlog.js';
import { DynamoAuditSalts } from '../../adapters/dynamo/audit-salts.js';
import { ENV, type Env } from '../../env.js';
import { ConfigError } from '../config-parsing.js';
import { METRICS_NAMESPACE, METRICS_SERVICE } from '../metric-names.js';
import { sqsClient } from '../parts-queues.js';
import { clientOptions, documentClient, type Parts } from '../parts.js';
import { installAuditTrail, type AuditTrail } from './audit-trail.js';
import { buildAuditTrail } from './build.js';
import { AUDIT_METRICS } from './metric-names.js';

export interface AwsAuditConfig {
  streamName: string;
  keyArn: string;
  backlogQueueUrl: string;
  /** Where the salts live (the Idempotency table). */
  idempotencyTable: string;
}

const optional = z.preprocess((value) => (value === '' ? undefined : value), z.string().min(1).optional());
const auditEnvSchema = z.object({ [ENV.AUDIT_STREAM_NAME]: optional, [ENV.AUDIT_KEY_ARN]: optional, [ENV.AUDIT_BACKLOG_QUEUE_URL]: optional });

/** The audit settings of a function, or undefined when the deployment has no audit trail. */
export function auditConfigFromEnv(env: Env, idempotencyTable: string): AwsAuditConfig | undefined {
  const parsed = auditEnvSchema.parse(env);
  const values = [parsed.AUDIT_STREAM_NAME, parsed.AUDIT_KEY_ARN, parsed.AUDIT_BACKLOG_QUEUE_URL];
  if (values.every((value) => value === undefined)) return undefined;
  if (values.some((value) => value === undefined)) throw new ConfigError(`audit trail: ${ENV.AUDIT_STREAM_NAME}, ${ENV.AUDIT_KEY_ARN} and ${ENV.AUDIT_BACKLOG_QUEUE_URL} are required together`);
  return { streamName: parsed.AUDIT_STREAM_NAME!, keyArn: parsed.AUDIT_KEY_ARN!, backlogQueueUrl: parsed.AUDIT_BACKLOG_QUEUE_URL!, idempotencyTable };
}

/** The writer's stream name: this container. */
export function containerStreamName(env: Env = process.env): string {
  return `${env.AWS_LAMBDA_FUNCTION_NAME ?? 'function'}/${randomBytes(6).toString('hex')}`;
}

/**
 * A hung call must not hold a batch's acknowledgement: Firehose and KMS answer in milliseconds, so
 * past these the writer fails over to the backlog. (Salt reads share the functions' DynamoDB client and its settings.)
 */
const AUDIT_CALL_TIMEOUTS = { requestHandler: { connectionTimeout: 1_000, requestTimeout: 3_000 } };

export function awsAuditTrail(parts: Parts, config: AwsAuditConfig, stream = containerStreamName()): AuditTrail {
  const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: METRICS_SERVICE });
  return buildAuditTrail({
    stream,
    sink: new FirehoseAuditSink(new FirehoseClient({ ...clientOptions(parts), ...AUDIT_CALL_TIMEOUTS }), config.streamName),
    backlog: new SqsAuditBacklog(sqsClient(parts), config.backlogQueueUrl),
    keys: new KmsAuditKeys(new KMSClient({ ...clientOptions(parts), ...AUDIT_CALL_TIMEOUTS }), config.keyArn),
    salts: new DynamoAuditSalts(documentClient(parts), config.idempotencyTable, () => parts.clock.nowMs()),
    clock: parts.clock,
    logger: parts.logger,
    // Only the gap is a metric (the written count is Firehose's IncomingRecords): one EMF line when it happens.
    onCount(count, records) {
      if (count === 'written') return;
      metrics.singleMetric().addMetric(count === 'buffered' ? AUDIT_METRICS.buffered : AUDIT_METRICS.unbuffered, MetricUnit.Count, records);
    },
  });
}

/** Installs the trail the environment configures (a Lambda entry calls it before composing). */
export function installAuditTrailFromEnv(parts: Parts, env: Env, idempotencyTable: string): AuditTrail | undefined {
  const config = auditConfigFromEnv(env, idempotencyTable);
  return config ? installAuditTrail(parts, awsAuditTrail(parts, config)) : undefined;
}
