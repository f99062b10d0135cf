/**
 * The audit trail's delivery: a Firehose stream (Direct PUT, GZIP, 300 s / 64 MiB buffers) into the
 * archive bucket (this account's `AuditArchive`, or a bucket in a logging account). It lives beside
 * the archive in the stateful part (the data stack), so the archive's ARN is never a cross-stack import.
 *
 * Why Firehose and not a writer of our own: the functions already pack a batch's decisions into ONE
 * Firehose record (billed per 5 KB), so a million decisions cost about $0.03 of ingestion, while
 * one S3 PUT per batch from the functions would cost about $1 (BENCHMARKS.md, "Audit trail cost").
 * Firehose buffers across all containers and retries S3 for 24 h. Its role gets exactly AWS's
 * documented S3-destination actions: put, read back, list, multipart abort; never a delete or an
 * Object Lock call (test/infra/audit-trail.test.ts checks every role of the app).
 */
import { Duration, Stack, type RemovalPolicy } from 'aws-cdk-lib';
import { type Alarm, ComparisonOperator, Metric, Stats, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { CfnDeliveryStream } from 'aws-cdk-lib/aws-kinesisfirehose';
import { LogGroup, LogStream, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { acknowledgeWildcardResource } from '../nag.js';
import { ARCHIVE_WRITE_ACTIONS } from './audit-archive.js';

/** The archive the stream writes to: its bucket ARN and the ARN of the KMS key that encrypts it. */
export interface AuditDestination {
  bucketArn: string;
  keyArn: string;
}

export interface AuditStreamProps {
  destination: AuditDestination;
  /** Firehose buffering interval (60..900 s): objects are written at least this often. Default 300 s. */
  bufferInterval?: Duration;
  logRetention: RetentionDays;
  removalPolicy: RemovalPolicy;
  alarmTopicArn?: string;
}

export class AuditStream extends Construct {
  readonly deliveryStream: CfnDeliveryStream;
  readonly firehoseRole: Role;
  readonly freshnessAlarm: Alarm;

  constructor(scope: Construct, id: string, props: AuditStreamProps) {
    super(scope, id);
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
    const firehoseMetric = (metricName: string, statistic: string) =>
      new Metric({ namespace: 'AWS/Firehose', metricName, dimensionsMap: { DeliveryStreamName: this.deliveryStream.ref }, statistic, period: Duration.minutes(5) });
    this.freshnessAlarm = firehoseMetric('DeliveryToS3.DataFreshness', Stats.MAXIMUM).createAlarm(this, 'DataFreshness', {
      alarmDescription: 'The oldest audit record in Firehose waits more than 15 minutes past its buffer: S3 (bucket policy, KMS key, Object Lock) refuses the deliveries; Firehose retries for 24 h',
      threshold: bufferSeconds + 900,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    if (props.alarmTopicArn) this.freshnessAlarm.addAlarmAction(new SnsAction(Topic.fromTopicArn(this, 'AlarmTopic', props.alarmTopicArn)));
  }
}
