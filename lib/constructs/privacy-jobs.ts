/**
 * The erase and export job (GDPR Art. 17 and 15), deployed: one queue (+DLQ) and one function that
 * runs a job in bounded, checkpointed steps (`src/app/privacy-jobs.ts`), and the encrypted bucket the
 * exports are written to.
 *
 * Started two ways, both IAM-authorised: a product backend publishes `user.erased` or
 * `user.export.requested` on the notifications bus (a rule puts it on the queue), or an operator
 * sends a job message to the queue (`npm run erase -- --job-queue <url>`, `sqs:SendMessage`).
 * Status is the job's record in the Idempotency table; an export is read through a presigned GET
 * URL the operator signs with their own credentials (15 minutes).
 *
 * Least privilege: the exact item actions per table (and Query of the two sparse indexes only),
 * `sns:DeleteEndpoint` on the configured platform applications' endpoints only, `DELETE
 * @connections` on the one WebSocket stage, `scheduler:DeleteSchedule` in the app's group, S3 put,
 * list and delete under `exports/` of its own bucket, `sqs:SendMessage` to its own queue.
 */
import { Duration, type RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { WebSocketStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { Rule, type IEventBus } from 'aws-cdk-lib/aws-events';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { SqsQueue } from 'aws-cdk-lib/aws-events-targets';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ENV } from '../../src/env.js';
import { AUTHOR_INDEX, OWNER_INDEX } from '../../src/core/model/keys.js';
import { PRIVACY_REQUEST_DETAIL_TYPES } from '../../src/core/privacy/privacy-jobs.js';
import { acknowledge, acknowledgeWildcardResource } from '../nag.js';
import { HandlerFunction, type FunctionDefaults } from './handler-function.js';
import type { InboxTables } from './inbox-tables.js';
import { QueueWithDlq } from './queue-with-dlq.js';
import type { Scheduling } from './scheduling.js';

export interface PrivacyJobsProps {
  tables: InboxTables;
  defaults: FunctionDefaults;
  bus: IEventBus;
  ruleDeadLetterQueue: Queue;
  maxReceiveCount: number;
  scheduling: Scheduling;
  /** Live delivery's stage: the erasure closes the user's connections (DELETE @connections). */
  liveStage?: WebSocketStage;
  /** The SNS platform endpoints of the configured applications (`arn:…:endpoint/<platform>/<app>/*`): the erasure deletes the user's. */
  pushEndpoints?: readonly string[];
  /** The app's customer-managed key: encrypts the export bucket too; default the AWS-managed S3 key (SSE-KMS either way). */
  encryptionKey?: IKey;
  removalPolicy: RemovalPolicy;
  /** Days an export (and its job record) is kept. Default 7. */
  exportRetentionDays?: number;
}

/** An erasure step is bounded by its work budget; five minutes leaves a slow table room. */
export const PRIVACY_JOB_TIMEOUT = Duration.minutes(5);

export class PrivacyJobs extends Construct {
  readonly queue: QueueWithDlq;
  readonly worker: HandlerFunction;
  readonly bucket: Bucket;

  constructor(scope: Construct, id: string, props: PrivacyJobsProps) {
    super(scope, id);
    const { inbox, readMarks, connections, graph, idempotency } = props.tables.tables;
    this.queue = new QueueWithDlq(this, 'Queue', {
      consumerTimeout: PRIVACY_JOB_TIMEOUT,
      maxReceiveCount: props.maxReceiveCount,
      // A step waits out the grace period (SQS delay, at most 15 min) before the next one.
      maxMessageAge: Duration.minutes(30),
      purpose: 'erase and export jobs (user.erased, user.export.requested, operator messages)',
    });
    new Rule(this, 'Requests', {
      eventBus: props.bus,
      description: 'user.erased and user.export.requested events to the privacy job queue',
      eventPattern: { detailType: [...PRIVACY_REQUEST_DETAIL_TYPES] },
      targets: [new SqsQueue(this.queue.queue, { deadLetterQueue: props.ruleDeadLetterQueue, retryAttempts: 185, maxEventAge: Duration.hours(24) })],
    });

    this.bucket = new Bucket(this, 'Exports', {
      // SSE-KMS: the app's customer-managed key when it has one, else the account's AWS-managed S3 key.
      ...(props.encryptionKey ? { encryption: BucketEncryption.KMS, encryptionKey: props.encryptionKey } : { encryption: BucketEncryption.KMS_MANAGED }),
      bucketKeyEnabled: true,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      versioned: false,
      lifecycleRules: [{ expiration: Duration.days(props.exportRetentionDays ?? 7) }],
      removalPolicy: props.removalPolicy,
      autoDeleteObjects: false,
    });
    acknowledge(
      this.bucket,
      'AwsSolutions-S1',
      'Exports are personal data kept a few days and read only through presigned URLs the operator signs; access is audited with CloudTrail data events, not a second bucket of access logs that would copy object keys.',
    );

    this.worker = new HandlerFunction(this, 'PrivacyJob', {
      handler: 'privacy-job',
      serviceName: 'privacy-job',
      description: 'Erases (bounded, checkpointed steps) or exports (to the encrypted export bucket) one user',
      defaults: props.defaults,
      timeout: PRIVACY_JOB_TIMEOUT,
      environment: { [ENV.EXPORT_BUCKET]: this.bucket.bucketName, [ENV.SCHEDULE_GROUP_NAME]: props.scheduling.group.scheduleGroupName },
    })
      // Their partitions (Query, keys only), keys computed from them (BatchGetItem), deletes (BatchWriteItem);
      // a shared item's parts taken out under a guard (UpdateItem; GetItem when the guard fails).
      .readTable(inbox, ['dynamodb:Query', 'dynamodb:BatchGetItem', 'dynamodb:GetItem'])
      .writeTable(inbox, ['dynamodb:BatchWriteItem', 'dynamodb:UpdateItem'])
      .readTable(readMarks, ['dynamodb:Query'])
      .writeTable(readMarks, ['dynamodb:BatchWriteItem'])
      .readTable(connections, ['dynamodb:Query', 'dynamodb:BatchGetItem', 'dynamodb:GetItem'])
      .writeTable(connections, ['dynamodb:BatchWriteItem', 'dynamodb:UpdateItem'])
      // Their follow edges: DeleteItem (ALL_OLD) then the followee's count (UpdateItem).
      .readTable(graph, ['dynamodb:Query', 'dynamodb:BatchGetItem', 'dynamodb:GetItem'])
      .writeTable(graph, ['dynamodb:BatchWriteItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'])
      // The tombstone and checkpoint (GetItem, conditional PutItem), export job records (PutItem), owner records (BatchWriteItem);
      // the user's audit salt among their records (BatchGetItem).
      .readTable(idempotency, ['dynamodb:GetItem', 'dynamodb:BatchGetItem'])
      .writeTable(idempotency, ['dynamodb:PutItem', 'dynamodb:BatchWriteItem'])
      .sendTo(this.queue.queue, ENV.PRIVACY_JOB_QUEUE_URL)
      .consume(this.queue, { batchSize: 1 });
    // The sparse indexes under their id (Query), nothing else of either table's indexes.
    this.worker.allow(['dynamodb:Query'], [`${inbox.table.tableArn}/index/${AUTHOR_INDEX.name}`, `${idempotency.table.tableArn}/index/${OWNER_INDEX.name}`]);
    const exportsPrefix = this.bucket.arnForObjects('exports/*');
    this.worker.allow(['s3:PutObject', 's3:DeleteObject'], [exportsPrefix]);
    this.worker.addStatement(this.listExports());
    // A customer-managed key is granted (the AWS-managed S3 key is usable through S3 by the account's principals).
    if (props.encryptionKey) this.worker.allow(['kms:GenerateDataKey', 'kms:Decrypt'], [props.encryptionKey.keyArn]);
    acknowledgeWildcardResource(this.worker.executionRole, exportsPrefix, 'Export object keys are a digest of the subject and a job id known only at run time; the grant is limited to exports/ of this bucket.');
    // Their pending schedules, deleted by name in the app's group.
    const schedules = Stack.of(this).formatArn({ service: 'scheduler', resource: 'schedule', resourceName: `${props.scheduling.group.scheduleGroupName}/*` });
    this.worker.allow(['scheduler:DeleteSchedule'], [schedules]);
    acknowledgeWildcardResource(this.worker.executionRole, schedules, 'Schedule names are derived from the user at run time; the grant is limited to DeleteSchedule in the app\'s schedule group.');
    if (props.liveStage) {
      const apiArn = Stack.of(this).formatArn({ service: 'execute-api', resource: props.liveStage.api.apiId });
      const connectionsArn = `${apiArn}/${props.liveStage.stageName}/DELETE/@connections/*`;
      this.worker.addEnvironment(ENV.WS_MANAGEMENT_ENDPOINT, props.liveStage.callbackUrl);
      this.worker.allow(['execute-api:ManageConnections'], [connectionsArn]);
      acknowledgeWildcardResource(this.worker.executionRole, connectionsArn, 'Connection ids are only known at run time; the grant is limited to DELETE (DeleteConnection) on this one API stage.');
    }
    for (const endpoint of props.pushEndpoints ?? []) {
      this.worker.allow(['sns:DeleteEndpoint'], [endpoint]);
      acknowledgeWildcardResource(this.worker.executionRole, endpoint, 'Platform endpoints are created per device token at run time; the grant covers only the endpoints of the configured platform applications.');
    }
  }

  /** ListBucket of the bucket, only under `exports/` (an erasure deletes a user's exports by prefix). */
  private listExports(): PolicyStatement {
    return new PolicyStatement({ actions: ['s3:ListBucket'], resources: [this.bucket.bucketArn], conditions: { StringLike: { 's3:prefix': ['exports/*'] } } });
  }
}
