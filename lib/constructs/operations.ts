import { Duration, Stack } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import {
  type Alarm,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  MathExpression,
  Metric,
  Stats,
  TextWidget,
  TreatMissingData,
  type IAlarmAction,
  type IWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct, type IConstruct } from 'constructs';
import { HandlerFunction } from './handler-function.js';
import { QueueWithDlq } from './queue-with-dlq.js';
import { BUSINESS_METRICS, METRICS_NAMESPACE, METRICS_SERVICE, SUPPRESSION_REASONS } from '../../src/app/metric-names.js';

/** A business metric the functions emit (EMF, src/app/parts-observability.ts). */
function businessMetric(metricName: string, statistic: string, extraDimensions: Record<string, string> = {}, label?: string): Metric {
  return new Metric({ namespace: METRICS_NAMESPACE, metricName, dimensionsMap: { service: METRICS_SERVICE, ...extraDimensions }, statistic, period: Duration.minutes(1), ...(label ? { label } : {}) });
}

/** A stable construct id from a construct's path in its stack, so alarms keep their identity when others are added. */
function idFrom(construct: Construct): string {
  return construct.node.path.split('/').slice(1).join('').replace(/[^A-Za-z0-9]/g, '');
}

export interface OperationsProps {
  restApi?: RestApi;
  /** Dead-letter queues that are not part of a QueueWithDlq (e.g. the rule-target DLQ). */
  extraDeadLetterQueues?: { name: string; id: string; queue: Queue }[];
  /** Every alarm notifies this SNS topic when set. */
  alarmTopicArn?: string;
  /** End-to-end latency (event time -> live push) p99 above this raises an alarm. Default 30 s. */
  endToEndLatencyAlarm?: Duration;
}

/**
 * Alarms and a dashboard for everything in the stack. Queues and functions are DISCOVERED in the
 * stack (every QueueWithDlq and HandlerFunction), so a new one cannot be forgotten: create this
 * construct last. Alarms: each DLQ's depth >= 1, each queue's oldest message older than its
 * `maxMessageAge`, each function's errors and throttles (one metric-math alarm per function).
 */
export class Operations extends Construct {
  readonly alarms: Alarm[] = [];
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: OperationsProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const queues = stack.node.findAll().filter((node): node is QueueWithDlq => node instanceof QueueWithDlq);
    const functions = stack.node.findAll().filter((node): node is HandlerFunction => node instanceof HandlerFunction);
    const action: IAlarmAction | undefined = props.alarmTopicArn ? new SnsAction(Topic.fromTopicArn(this, 'AlarmTopic', props.alarmTopicArn)) : undefined;
    // An alarm lives in the (nested) stack of what it watches: a large catalog's types fill nested stacks.
    const alarmScopes = new Map<Stack, Construct>();
    const scopeFor = (owner: IConstruct): Construct => {
      const ownerStack = Stack.of(owner);
      if (ownerStack === stack) return this;
      if (!alarmScopes.has(ownerStack)) alarmScopes.set(ownerStack, new Construct(ownerStack, 'Alarms'));
      return alarmScopes.get(ownerStack)!;
    };
    const alarm = (owner: IConstruct, create: (scope: Construct) => Alarm): Alarm => {
      const created = create(scopeFor(owner));
      if (action) created.addAlarmAction(action);
      this.alarms.push(created);
      return created;
    };

    const deadLetterQueues = [
      ...queues.filter((source) => !source.sharesDeadLetterQueue).map((source) => ({ name: source.purpose, id: idFrom(source), queue: source.deadLetterQueue })),
      ...(props.extraDeadLetterQueues ?? []),
    ];
    deadLetterQueues.forEach(({ name, id: queueId, queue }) => {
      alarm(queue, (scope) =>
        queue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: Stats.MAXIMUM }).createAlarm(scope, `${queueId}DlqDepth`, {
          alarmDescription: `Messages in the dead-letter queue of ${name}: inspect, fix, then redrive`,
          threshold: 1,
          evaluationPeriods: 1,
          comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        }),
      );
    });
    queues.forEach((source) => {
      alarm(source, (scope) =>
        source.queue.metricApproximateAgeOfOldestMessage({ period: Duration.minutes(1), statistic: Stats.MAXIMUM }).createAlarm(scope, `${idFrom(source)}OldestMessage`, {
          alarmDescription: `Oldest message of ${source.purpose} older than ${source.maxMessageAge.toSeconds()} s: the consumer is failing or falling behind`,
          threshold: source.maxMessageAge.toSeconds(),
          evaluationPeriods: 3,
          comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        }),
      );
    });
    // One alarm per function on errors + throttles (metric math): each function keeps its own alarm, at half the resources.
    functions.forEach((fn) => {
      alarm(fn, (scope) =>
        new MathExpression({
          expression: 'FILL(errors, 0) + FILL(throttles, 0)',
          usingMetrics: { errors: fn.metricErrors({ period: Duration.minutes(5), statistic: Stats.SUM }), throttles: fn.metricThrottles({ period: Duration.minutes(5), statistic: Stats.SUM }) },
          period: Duration.minutes(5),
          label: `${fn.node.id} errors + throttles`,
        }).createAlarm(scope, `${idFrom(fn)}ErrorsOrThrottles`, {
          alarmDescription: `${fn.handlerName} (${fn.node.id}) invocations failed or were throttled (the Errors and Throttles metrics say which)`,
          threshold: 1,
          evaluationPeriods: 1,
          comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        }),
      );
    });

    alarm(this, (scope) =>
      businessMetric(BUSINESS_METRICS.deadLettered, Stats.SUM).with({ period: Duration.minutes(5) }).createAlarm(scope, 'BusinessDeadLettered', {
        alarmDescription: 'Events or delivery jobs dead-lettered (WARN log "dead-lettered" has the reason; npm run explain / npm run dlq)',
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
    const latencyThreshold = props.endToEndLatencyAlarm ?? Duration.seconds(30);
    alarm(this, (scope) =>
      businessMetric(BUSINESS_METRICS.endToEndLatency, Stats.p(99)).with({ period: Duration.minutes(5) }).createAlarm(scope, 'EndToEndLatencyP99', {
        alarmDescription: `Live pushes reach users more than ${latencyThreshold.toSeconds()} s after their event (p99): the pipeline is backed up`,
        threshold: latencyThreshold.toMilliseconds(),
        evaluationPeriods: 3,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );

    const widgets: IWidget[][] = [
      [new TextWidget({ markdown: '# Notifications\nQueues, dead-letter queues, functions and the REST API. Every DLQ message and every function error raises an alarm.', width: 24, height: 2 })],
      [
        new GraphWidget({
          title: 'Dead-letter queue depth',
          width: 12,
          left: deadLetterQueues.map(({ name, queue }) => queue.metricApproximateNumberOfMessagesVisible({ label: name, statistic: Stats.MAXIMUM })),
        }),
        new GraphWidget({
          title: 'Oldest message age (s)',
          width: 12,
          left: queues.map((source) => source.queue.metricApproximateAgeOfOldestMessage({ label: source.purpose, statistic: Stats.MAXIMUM })),
        }),
      ],
      [
        new GraphWidget({
          title: 'Events and notifications (per minute)',
          width: 8,
          left: [
            businessMetric(BUSINESS_METRICS.accepted, Stats.SUM, {}, 'accepted'),
            businessMetric(BUSINESS_METRICS.invalid, Stats.SUM, {}, 'invalid'),
            businessMetric(BUSINESS_METRICS.notificationsWritten, Stats.SUM, {}, 'inbox items written'),
            businessMetric(BUSINESS_METRICS.deliveredLive, Stats.SUM, {}, 'delivered live'),
            businessMetric(BUSINESS_METRICS.deadLettered, Stats.SUM, {}, 'dead-lettered'),
          ],
        }),
        new GraphWidget({
          title: 'Live pushes suppressed, by reason',
          width: 8,
          left: [
            ...SUPPRESSION_REASONS.map((reason) => businessMetric(BUSINESS_METRICS.suppressed, Stats.SUM, { Reason: reason }, reason)),
            businessMetric(BUSINESS_METRICS.deduplicated, Stats.SUM, {}, 'deduplicated (already pushed)'),
          ],
        }),
        new GraphWidget({
          title: 'End-to-end latency (ms): event time -> live push',
          width: 8,
          left: [businessMetric(BUSINESS_METRICS.endToEndLatency, Stats.p(50), {}, 'p50'), businessMetric(BUSINESS_METRICS.endToEndLatency, Stats.p(99), {}, 'p99')],
        }),
      ],
      [
        new GraphWidget({ title: 'Function errors', width: 8, left: functions.map((fn) => fn.metricErrors({ label: fn.node.id, statistic: Stats.SUM })) }),
        new GraphWidget({ title: 'Function throttles', width: 8, left: functions.map((fn) => fn.metricThrottles({ label: fn.node.id, statistic: Stats.SUM })) }),
        new GraphWidget({ title: 'Function duration p99 (ms)', width: 8, left: functions.map((fn) => fn.metricDuration({ label: fn.node.id, statistic: Stats.p(99) })) }),
      ],
    ];
    if (props.restApi) {
      const api = props.restApi;
      widgets.push([
        new GraphWidget({ title: 'REST requests and errors', width: 12, left: [api.metricCount({ statistic: Stats.SUM }), api.metricClientError({ statistic: Stats.SUM }), api.metricServerError({ statistic: Stats.SUM })] }),
        new GraphWidget({ title: 'REST latency p99 (ms)', width: 12, left: [api.metricLatency({ statistic: Stats.p(99) }), api.metricIntegrationLatency({ statistic: Stats.p(99) })] }),
      ]);
    }
    this.dashboard = new Dashboard(this, 'Dashboard', { widgets });
  }
}
