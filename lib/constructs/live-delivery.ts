import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { LogGroupLogDestination, WebSocketApi, WebSocketStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { WebSocketLambdaAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { WebSocketLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { acknowledge } from '../nag.js';
import { HandlerFunction, type FunctionDefaults } from './handler-function.js';
import type { InboxTables } from './inbox-tables.js';
import { RETRACTIONS_KEY_PATTERN } from '../../src/core/model/keys.js';
import type { QueueWithDlq } from './queue-with-dlq.js';
import type { Scheduling } from './scheduling.js';
import { ENV } from '../../src/env.js';
import { FOLLOWED_CELEBS_PACK_KEY_PATTERN, PROFILE_PARTITION_KEY_PATTERN, USER_TRACE_KEY_PATTERN } from '../../src/core/model/keys.js';

/** Timeout of the delivery consumers; the delivery queues' visibility timeout is derived from it. */
export const DELIVERY_CONSUMER_TIMEOUT = Duration.seconds(30);

export interface LiveDeliveryProps {
  tables: InboxTables;
  defaults: FunctionDefaults;
  /** The JWT REQUEST authorizer (`authorizer.ts`), used on $connect with the `token` query parameter. */
  authorizer: HandlerFunction;
  urgentDelivery: QueueWithDlq;
  infoDelivery: QueueWithDlq;
  infoBatchWindowSeconds: number;
  /** HMAC key the fan-out signs delivery jobs with: delivery pushes only jobs that verify. */
  deliveryJobSecret: string;
  /** The snooze comebacks' key: the urgent consumer verifies them (they go to the urgent queue only). */
  snoozeJobSecret?: string;
  /** `maxConcurrency` of each delivery consumer's event source (lib/config.ts). */
  deliveryMaxConcurrency: number;
  /** Quiet hours and rate limits hold pushes and release them through one-time schedules. */
  scheduling: Scheduling;
  logRetention: RetentionDays;
  removalPolicy: RemovalPolicy;
  stageName?: string;
}

/**
 * Live pushes: the WebSocket API ($connect behind the Lambda authorizer, $disconnect, $default for
 * client messages) and the two delivery consumers: urgent (no batching window) and info (batching
 * window = digest collapse window).
 */
export class LiveDelivery extends Construct {
  readonly api: WebSocketApi;
  readonly stage: WebSocketStage;
  readonly connect: HandlerFunction;
  readonly disconnect: HandlerFunction;
  readonly defaultRoute: HandlerFunction;
  readonly urgentDelivery: HandlerFunction;
  readonly infoDelivery: HandlerFunction;
  readonly accessLogs: LogGroup;

  constructor(scope: Construct, id: string, props: LiveDeliveryProps) {
    super(scope, id);
    const { tables, defaults } = props;

    this.connect = new HandlerFunction(this, 'Connect', {
      handler: 'ws-connect',
      serviceName: 'ws-connect',
      description: 'WebSocket $connect: registers the authorized connection, presence and celebrity subscriptions',
      defaults,
    });
    this.disconnect = new HandlerFunction(this, 'Disconnect', {
      handler: 'ws-disconnect',
      serviceName: 'ws-disconnect',
      description: 'WebSocket $disconnect: removes the connection and what was registered for it',
      defaults,
    });
    this.defaultRoute = new HandlerFunction(this, 'Default', {
      handler: 'ws-default',
      serviceName: 'ws-default',
      description: 'WebSocket $default: client messages (ping)',
      defaults,
    });

    this.api = new WebSocketApi(this, 'Api', {
      description: 'Live notification pushes',
      connectRouteOptions: {
        integration: new WebSocketLambdaIntegration('ConnectIntegration', this.connect),
        authorizer: new WebSocketLambdaAuthorizer('Authorizer', props.authorizer, { identitySource: ['route.request.querystring.token'] }),
      },
      disconnectRouteOptions: { integration: new WebSocketLambdaIntegration('DisconnectIntegration', this.disconnect) },
      defaultRouteOptions: { integration: new WebSocketLambdaIntegration('DefaultIntegration', this.defaultRoute) },
    });
    this.accessLogs = new LogGroup(this, 'AccessLogs', { retention: props.logRetention, removalPolicy: props.removalPolicy });
    this.stage = new WebSocketStage(this, 'Stage', {
      webSocketApi: this.api,
      stageName: props.stageName ?? 'live',
      autoDeploy: true,
      accessLogSettings: {
        destination: new LogGroupLogDestination(this.accessLogs),
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: '$context.requestId',
            connectionId: '$context.connectionId',
            routeKey: '$context.routeKey',
            eventType: '$context.eventType',
            status: '$context.status',
            requestTime: '$context.requestTime',
            sourceIp: '$context.identity.sourceIp',
            principalId: '$context.authorizer.principalId',
            error: '$context.error.message',
            integrationError: '$context.integration.error',
          }),
        ),
      },
    });

    const { connections, graph, idempotency, inbox } = tables.tables;
    // $connect: reads the user's followed celebrities, writes connection, reverse, subscription
    // items (BatchWriteItem) and the presence item (UpdateItem).
    this.connect.readTableKeys(graph, ['dynamodb:Query'], [FOLLOWED_CELEBS_PACK_KEY_PATTERN]).writeTable(connections, ['dynamodb:BatchWriteItem', 'dynamodb:UpdateItem']);
    // $disconnect: GetItem of the reverse item, then presence UpdateItem and BatchWriteItem deletes.
    this.disconnect.readTable(connections, ['dynamodb:GetItem']).writeTable(connections, ['dynamodb:UpdateItem', 'dynamodb:BatchWriteItem']);
    // $default: only answers the caller (pong) through the management API; no table.
    this.defaultRoute.postToConnections(this.stage);

    const delivery = (constructId: string, mode: 'urgent' | 'info') =>
      new HandlerFunction(this, constructId, {
        handler: 'delivery',
        serviceName: `delivery-${mode}`,
        description: mode === 'urgent' ? 'Pushes urgent notifications to every connection of the recipients at once' : 'Collapses a batching window of info notifications per user into digests and pushes them',
        defaults,
        timeout: DELIVERY_CONSUMER_TIMEOUT,
        memorySize: 512,
        // Release schedules of held pushes deliver to the urgent queue (pushed at once when they fire).
        environment: {
          [ENV.DELIVERY_MODE]: mode,
          [ENV.RELEASE_QUEUE_ARN]: props.urgentDelivery.queue.queueArn,
          [ENV.DELIVERY_JOB_SECRET]: props.deliveryJobSecret,
          ...(mode === 'urgent' && props.snoozeJobSecret ? { [ENV.SNOOZE_JOB_SECRET]: props.snoozeJobSecret } : {}),
        },
      })
        // Presence of the recipients (BatchGetItem), a celebrity's online subscribers (Query), the
        // reverse item of a 410 connection (GetItem).
        .readTable(connections, ['dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:GetItem'])
        // Preferences (quiet hours, time zone, per-type live delivery) live in the Graph table: BatchGetItem of PROFILE partitions.
        .readTableKeys(graph, ['dynamodb:BatchGetItem'], [PROFILE_PARTITION_KEY_PATTERN])
        // A snooze comeback is not pushed once its event was retracted: the tenant's retraction list only (Query).
        .readTableKeys(inbox, ['dynamodb:Query'], [RETRACTIONS_KEY_PATTERN])
        // 410 Gone: the stale connection leaves presence (UpdateItem) and its items go (BatchWriteItem).
        .writeTable(connections, ['dynamodb:UpdateItem', 'dynamodb:BatchWriteItem'])
        // Erasure tombstones of the batch's recipients and authors (BatchGetItem): an erased user gets nothing.
        .readTable(idempotency, ['dynamodb:BatchGetItem'])
        // A released hold's notifications, read by id (BatchGetItem of the recipient's inbox or the celebrity posts log).
        .readTable(inbox, ['dynamodb:BatchGetItem'])
        // The recipients' delivery-trace records: their trace partitions only (BatchWriteItem).
        .writeTableKeys(inbox, ['dynamodb:BatchWriteItem'], [USER_TRACE_KEY_PATTERN])
        // Delivery ledger (conditional put, delete on a failed push); rate-limit counters and holds (updates); delivery-trace records (batch writes).
        .writeTable(idempotency, ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'])
        .postToConnections(this.stage)
        // Celebrity posts: the shard jobs, next-page jobs and put-back page jobs (SendMessageBatch) keep
        // their priority, so each consumer sends to its own queue only.
        .sendTo(mode === 'urgent' ? props.urgentDelivery.queue : props.infoDelivery.queue, mode === 'urgent' ? ENV.URGENT_QUEUE_URL : ENV.INFO_QUEUE_URL);
    // Bounded so pushes stay under API Gateway's account-wide 10,000 requests/s (docs/design-notes.md, "Live delivery at scale").
    const maxConcurrency = props.deliveryMaxConcurrency;
    this.urgentDelivery = delivery('UrgentDelivery', 'urgent').consume(props.urgentDelivery, { batchSize: 10, maxConcurrency });
    // A batch above 10 needs a batching window; with a window the digest sees up to 100 jobs at once.
    const window = props.infoBatchWindowSeconds;
    this.infoDelivery = delivery('InfoDelivery', 'info').consume(props.infoDelivery, {
      batchSize: window > 0 ? 100 : 10,
      maxConcurrency,
      ...(window > 0 ? { maxBatchingWindow: Duration.seconds(window) } : {}),
    });
    props.scheduling.allowScheduling(this.urgentDelivery);
    props.scheduling.allowScheduling(this.infoDelivery);

    acknowledge(
      this.api,
      'AwsSolutions-APIG4',
      'A WebSocket API authorizes only $connect (Lambda authorizer, token query parameter); $disconnect and $default run on that already-authorized connection.',
    );
  }

  get url(): string {
    return this.stage.url;
  }

  get functions(): HandlerFunction[] {
    return [this.connect, this.disconnect, this.defaultRoute, this.urgentDelivery, this.infoDelivery];
  }
}
