/**
 * The stateless half of the audit trail: the backlog queue (+DLQ) and its drainer, the grants of
 * every function that records decisions, and the alarms that make a gap visible. The stream and the
 * archive are in the stateful part (lib/constructs/audit-stream.ts, audit-archive.ts).
 */
import { Duration } from 'aws-cdk-lib';
import { type Alarm, ComparisonOperator, Metric, Stats, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { ENV } from '../../src/env.js';
import { AUDIT_METRICS } from '../../src/app/audit/metric-names.js';
import { METRICS_NAMESPACE, METRICS_SERVICE } from '../../src/app/metric-names.js';
import { HandlerFunction, type FunctionDefaults } from './handler-function.js';
import type { SpecTable } from './inbox-tables.js';
import { QueueWithDlq } from './queue-with-dlq.js';

export interface AuditTrailProps {
  /** The Firehose stream (lib/constructs/audit-stream.ts): its name and ARN. */
  stream: { name: string; arn: string };
  /** The KMS HMAC key of the pseudonyms (data stack). */
  pseudonymKey: IKey;
  /** The Idempotency table: the users' pseudonym salts and the erasure tombstones. */
  idempotency: SpecTable;
  defaults: FunctionDefaults;
  maxReceiveCount: number;
  alarmTopicArn?: string;
}

const DRAIN_TIMEOUT = Duration.seconds(30);

export class AuditTrail extends Construct {
  readonly backlog: QueueWithDlq;
  readonly drainer: HandlerFunction;
  readonly alarms: Alarm[] = [];
  readonly streamName: string;

  constructor(scope: Construct, id: string, private readonly props: AuditTrailProps) {
    super(scope, id);
    this.streamName = props.stream.name;
    this.backlog = new QueueWithDlq(this, 'Backlog', { consumerTimeout: DRAIN_TIMEOUT, maxReceiveCount: props.maxReceiveCount, maxMessageAge: Duration.minutes(15), purpose: 'audit records the archive could not take yet' });
    this.drainer = new HandlerFunction(this, 'Drainer', {
      handler: 'audit-drain',
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
  }

  /**
   * A function that records decisions: the stream, key and backlog names, `firehose:PutRecordBatch`
   * on this stream, `kms:GenerateMac` on the pseudonym key, `sqs:SendMessage` on the backlog, and on
   * the Idempotency table the salt lookups (BatchGetItem, GetItem) and the salt creation (PutItem,
   * only of `...#AUDITSALT` keys).
   */
  record(fn: HandlerFunction): this {
    fn.addEnvironment(ENV.AUDIT_STREAM_NAME, this.props.stream.name);
    fn.addEnvironment(ENV.AUDIT_KEY_ARN, this.props.pseudonymKey.keyArn);
    fn.allow(['firehose:PutRecordBatch'], [this.props.stream.arn]);
    fn.allow(['kms:GenerateMac'], [this.props.pseudonymKey.keyArn]);
    fn.sendTo(this.backlog.queue, ENV.AUDIT_BACKLOG_QUEUE_URL);
    fn.readTable(this.props.idempotency, ['dynamodb:BatchGetItem', 'dynamodb:GetItem']);
    fn.writeTableKeys(this.props.idempotency, ['dynamodb:PutItem'], ['T#*#AUDITSALT']);
    return this;
  }
}
