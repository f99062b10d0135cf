/**
 * The stateless half of the audit trail: a Firehose stream (Direct PUT, GZIP, 300 s / 64 MiB
 * buffers) into the archive bucket (this account's `AuditArchive`, or a bucket in a logging
 * account), the backlog queue (+DLQ) and its drainer, the grants of every function that records
 * decisions, and the alarms that make a gap visible.
 *
 * Why Firehose and not a writer of our own: the functions already pack a batch's decisions into ONE
 * Firehose record (billed per 5 KB), so a million decisions cost about $0.03 of ingestion, while
 * one S3 PUT per batch from the functions would cost about $1 (BENCHMARKS.md, "Audit trail cost").
 * Firehose buffers across all containers and retries S3 for 24 h. Its role gets exactly AWS's
 * documented S3-destination actions: put, read back, list, multipart abort; never a delete or an
 * Object Lock call (test/infra/audit-trail.test.ts checks every role of the app).
 */
import { Duration, Stack } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, Metric, Stats, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { CfnDeliveryStream } from 'aws-cdk-lib/aws-kinesisfirehose';
import { LogGroup, LogStream, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { RemovalPolicy } from 'aws-cdk-lib';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { ENV } from '../../src/app/config.js';
import { AUDIT_METRICS } from '../../src/app/audit/metric-names.js';
import { METRICS_NAMESPACE, METRICS_SERVICE } from '../../src/app/metric-names.js';
import { acknowledgeWildcardResource } from '../nag.js';
import { ARCHIVE_WRITE_ACTIONS } from './audit-archive.js';
import { HandlerFunction, type FunctionDefaults } from './handler-function.js';
import type { SpecTable } from './inbox-tables.js';
import { QueueWithDlq } from './queue-with-dlq.js';

/** The archive the stream writes to: its bucket ARN and the ARN of the KMS key that encrypts it. */
export interface AuditDestination {
  bucketArn: string;
  keyArn: string;
}

export interface AuditTrailProps {
  destination: AuditDestination;
  /** The KMS HMAC key of the pseudonyms (data stack). */
  pseudonymKey: IKey;
  /** The Idempotency table: the users' pseudonym salts and the erasure tombstones. */
  idempotency: SpecTable;
  defaults: FunctionDefaults;
  maxReceiveCount: number;
  /** Firehose buffering interval (60..900 s): objects are written at least this often. Default 300 s. */
  bufferInterval?: Duration;
  logRetention: RetentionDays;
  removalPolicy: RemovalPolicy;
  alarmTopicArn?: string;
}

const DRAIN_TIMEOUT = Duration.seconds(30);

export class AuditTrail extends Construct {
  readonly deliveryStream: CfnDeliveryStream;
  readonly firehoseRole: Role;
  readonly backlog: QueueWithDlq;
  readonly drainer: HandlerFunction;
  readonly alarms: Alarm[] = [];
  private readonly props: AuditTrailProps;
  private readonly streamArn: string;

  constructor(scope: Construct, id: string, props: AuditTrailProps) {
    super(scope, id);
    this.props = props;
    const stack = Stack.of(this);
    const bufferSeconds = (props.bufferInterval ?? Duration.seconds(300)).toSeconds();
    if (bufferSeconds < 60 || bufferSeconds > 900) throw new Error(`${this.node.path}: bufferInterval must be 60..900 s, got ${bufferSeconds}`);

    this.firehoseRole = new Role(this, 'FirehoseRole', {
      assumedBy: new ServicePrincipal('firehose.amazonaws.com', { conditions: { StringEquals: { 'aws:SourceAccount': stack.account } } }),
      description: 'Delivers the audit trail to its Object Lock bucket: put and read back, never delete',
    });
    const objects = `${props.destination.bucketArn}/*`;
    this.firehoseRole.addToPrincipalPolicy(new PolicyStatement({ actions: [...ARCHIVE_WRITE_ACTIONS], resources: [props.destination.bucketArn, objects] }));
    // The archive key, only through S3 (SSE-KMS) and only for this bucket's objects.
    this.firehoseRole.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['kms:GenerateDataKey', 'kms:Decrypt'],
        resources: [props.destination.keyArn],
        conditions: { StringEquals: { 'kms:ViaService': `s3.${stack.region}.amazonaws.com` }, StringLike: { 'kms:EncryptionContext:aws:s3:arn': [props.destination.bucketArn, objects] } },
      }),
    );
    acknowledgeWildcardResource(this.firehoseRole, objects, 'Firehose names each object by its delivery time; the grant is the documented S3-destination set on this one bucket, with no delete.');
    const logGroup = new LogGroup(this, 'FirehoseLogs', { retention: props.logRetention, removalPolicy: props.removalPolicy });
    const logStream = new LogStream(this, 'FirehoseLogStream', { logGroup, removalPolicy: props.removalPolicy });
    logGroup.grantWrite(this.firehoseRole);

    this.deliveryStream = new CfnDeliveryStream(this, 'Stream', {
      deliveryStreamType: 'DirectPut',
      // The records carry no clear id (pseudonymized in the function); AWS-owned key at rest in the buffer.
      deliveryStreamEncryptionConfigurationInput: { keyType: 'AWS_OWNED_CMK' },
      extendedS3DestinationConfiguration: {
        bucketArn: props.destination.bucketArn,
        roleArn: this.firehoseRole.roleArn,
        prefix: 'audit/!{timestamp:yyyy}/!{timestamp:MM}/!{timestamp:dd}/',
        errorOutputPrefix: 'audit-errors/!{firehose:error-output-type}/!{timestamp:yyyy}/!{timestamp:MM}/!{timestamp:dd}/',
        bufferingHints: { intervalInSeconds: bufferSeconds, sizeInMBs: 64 },
        compressionFormat: 'GZIP',
        encryptionConfiguration: { kmsEncryptionConfig: { awskmsKeyArn: props.destination.keyArn } },
        cloudWatchLoggingOptions: { enabled: true, logGroupName: logGroup.logGroupName, logStreamName: logStream.logStreamName },
      },
    });
    this.deliveryStream.node.addDependency(this.firehoseRole);
    this.streamArn = this.deliveryStream.attrArn;

    this.backlog = new QueueWithDlq(this, 'Backlog', { consumerTimeout: DRAIN_TIMEOUT, maxReceiveCount: props.maxReceiveCount, maxMessageAge: Duration.minutes(15), purpose: 'audit records the archive could not take yet' });
    this.drainer = new HandlerFunction(this, 'Drainer', {
      handler: 'optional/audit-drain',
      serviceName: 'audit-drain',
      description: 'Puts the audit backlog (sealed segments, raw decisions) into the archive once Firehose takes it again',
      defaults: props.defaults,
      timeout: DRAIN_TIMEOUT,
    });
    this.record(this.drainer);
    this.drainer.consume(this.backlog, { batchSize: 10 });

    const action = props.alarmTopicArn ? new SnsAction(Topic.fromTopicArn(this, 'AlarmTopic', props.alarmTopicArn)) : undefined;
    const alarm = (created: Alarm) => {
      if (action) created.addAlarmAction(action);
      this.alarms.push(created);
    };
    const auditMetric = (metricName: string) => new Metric({ namespace: METRICS_NAMESPACE, metricName, dimensionsMap: { service: METRICS_SERVICE }, statistic: Stats.SUM, period: Duration.minutes(5) });
    alarm(
      auditMetric(AUDIT_METRICS.buffered).createAlarm(this, 'Buffered', {
        alarmDescription: 'Audit records went to the backlog queue (Firehose refused them, or keys/salts were unreadable): the archive has a gap until the drainer empties it',
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
    alarm(
      auditMetric(AUDIT_METRICS.unbuffered).createAlarm(this, 'Unbuffered', {
        alarmDescription: 'Audit records could be neither archived nor buffered: they are only in the function logs (ERROR "in this log line only"); copy them to the archive by hand',
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
    const firehoseMetric = (metricName: string, statistic: string) =>
      new Metric({ namespace: 'AWS/Firehose', metricName, dimensionsMap: { DeliveryStreamName: this.deliveryStream.ref }, statistic, period: Duration.minutes(5) });
    alarm(
      firehoseMetric('DeliveryToS3.DataFreshness', Stats.MAXIMUM).createAlarm(this, 'DataFreshness', {
        alarmDescription: 'The oldest audit record in Firehose waits more than 15 minutes past its buffer: S3 (bucket policy, KMS key, Object Lock) refuses the deliveries; Firehose retries for 24 h',
        threshold: bufferSeconds + 900,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
  }

  /**
   * A function that records decisions: the stream, key and backlog names, `firehose:PutRecordBatch`
   * on this stream, `kms:GenerateMac` on the pseudonym key, `sqs:SendMessage` on the backlog, and on
   * the Idempotency table the salt lookups (BatchGetItem, GetItem) and the salt creation (PutItem,
   * only of `...#AUDITSALT` keys).
   */
  record(fn: HandlerFunction): this {
    fn.addEnvironment(ENV.AUDIT_STREAM_NAME, this.deliveryStream.ref);
    fn.addEnvironment(ENV.AUDIT_KEY_ARN, this.props.pseudonymKey.keyArn);
    fn.allow(['firehose:PutRecordBatch'], [this.streamArn]);
    fn.allow(['kms:GenerateMac'], [this.props.pseudonymKey.keyArn]);
    fn.sendTo(this.backlog.queue, ENV.AUDIT_BACKLOG_QUEUE_URL);
    fn.readTable(this.props.idempotency, ['dynamodb:BatchGetItem', 'dynamodb:GetItem']);
    fn.writeTableKeys(this.props.idempotency, ['dynamodb:PutItem'], ['T#*#AUDITSALT']);
    return this;
  }
}
