import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { resourceNameOf } from '../../src/notifications/index.js';
import type { NotificationsConfig } from '../config.js';
import { HandlerFunction, type FunctionDefaults } from '../constructs/handler-function.js';
import { InboxApi, type InboxApiAuth } from '../constructs/inbox-api.js';
import type { InboxTables } from '../constructs/inbox-tables.js';
import type { RestFunction } from '../../src/handlers/rest/routes.js';
import { DELIVERY_CONSUMER_TIMEOUT, LiveDelivery } from '../constructs/live-delivery.js';
import { NotificationPipeline } from '../constructs/notification-pipeline.js';
import { Operations } from '../constructs/operations.js';
import { Scheduling } from '../constructs/scheduling.js';
import type { TenantUserPool } from '../constructs/tenant-user-pool.js';
import { ENV } from '../../src/app/config.js';
import type { NotificationType } from '../../src/core/ports/notification-type.js';

export interface AppStackProps extends StackProps {
  config: NotificationsConfig;
  tables: InboxTables;
  cursorSecret: Secret;
  /** Present in `cognito` auth mode. */
  userPool?: TenantUserPool;
  /** The notification types (default: the project catalog). */
  catalog?: readonly NotificationType[];
}

/**
 * The stateless stack: functions, queues, the bus, the APIs, schedules and operations. Everything
 * here can be destroyed and redeployed; the data lives in the DataStack.
 */
export class AppStack extends Stack {
  readonly pipeline: NotificationPipeline;
  readonly api: InboxApi;
  readonly live?: LiveDelivery;
  readonly scheduling: Scheduling;
  /** The JWT REQUEST authorizer: WebSocket $connect (both modes) and REST in `jwt` mode. */
  readonly authorizer?: HandlerFunction;
  readonly restFunctions: Record<RestFunction, HandlerFunction>;
  readonly operations: Operations;

  constructor(scope: Construct, id: string, props: AppStackProps) {
    super(scope, id, props);
    const { config, tables } = props;
    const { inbox, readMarks, graph } = tables.tables;
    const defaults: FunctionDefaults = {
      logLevel: config.logLevel,
      logRetention: config.logRetentionDays,
      removalPolicy: config.removalPolicy,
      environment: {
        [ENV.FEED_SHARDS]: String(config.feedShards),
        [ENV.INBOX_TTL_DAYS]: String(config.ttlDays),
        [ENV.TENANT_CLAIM]: config.tenantClaim,
      },
    };
    // REST functions answer browsers on other origins (src/handlers/rest/http.ts withCors).
    const corsEnvironment = { [ENV.CORS_ALLOW_ORIGINS]: config.corsAllowOrigins.join(',') };
    // The cursor key is resolved by CloudFormation at deploy (dynamic reference), so it is in
    // neither the template nor the source, and handlers read it from env once per container with
    // no Secrets Manager call on the request path. Only functions that sign or verify cursors get it.
    const cursorSecret = props.cursorSecret.secretValue.unsafeUnwrap();

    // The JWT REQUEST authorizer: WebSocket $connect in both modes, REST too in `jwt` mode.
    if (config.authMode === 'jwt' || config.liveDelivery) {
      const jwt =
        config.authMode === 'jwt'
          ? config.jwt!
          : {
              issuer: props.userPool!.issuer,
              audience: props.userPool!.client.userPoolClientId,
              jwksUrl: `${props.userPool!.issuer}/.well-known/jwks.json`,
            };
      this.authorizer = new HandlerFunction(this, 'Authorizer', {
        handler: 'authorizer',
        serviceName: 'authorizer',
        description: 'Verifies the JWT (issuer, audience, signature from JWKS) and passes tenant and user on',
        defaults,
        environment: { [ENV.JWT_ISSUER]: jwt.issuer, [ENV.JWT_AUDIENCE]: jwt.audience, [ENV.JWKS_URL]: jwt.jwksUrl, ...(config.fixedTenant ? { [ENV.FIXED_TENANT]: config.fixedTenant } : {}) },
      });
    }

    this.pipeline = new NotificationPipeline(this, 'Pipeline', {
      tables,
      defaults,
      eventBusName: config.eventBusName,
      maxReceiveCount: config.maxReceiveCount,
      celebrityThreshold: config.celebrityThreshold,
      deliveryConsumerTimeout: DELIVERY_CONSUMER_TIMEOUT,
      infoBatchWindowSeconds: config.infoBatchWindowSeconds,
      ...(props.catalog ? { catalog: props.catalog } : {}),
    });

    this.scheduling = new Scheduling(this, 'Scheduling', {
      targets: [...this.pipeline.types.map((type) => type.intake.queue), this.pipeline.urgentDelivery.queue],
      removalPolicy: config.removalPolicy,
    });
    for (const type of this.pipeline.types) this.scheduling.allowScheduling(type.fanOut);

    const inboxRead = new HandlerFunction(this, 'InboxRead', {
      handler: 'rest-read',
      serviceName: 'inbox-read-api',
      description: 'GET /notifications and /notifications/counts (cannot write the inbox)',
      defaults,
      environment: { [ENV.CURSOR_SECRET]: cursorSecret, ...corsEnvironment },
    })
      // Pages and counts: Query of the own inbox and feed shards, of the read state, of the followed
      // celebrities; muted types are one BatchGetItem of the preferences item.
      .readTable(inbox, ['dynamodb:Query'])
      .readTable(readMarks, ['dynamodb:Query'])
      .readTable(graph, ['dynamodb:Query', 'dynamodb:BatchGetItem']);
    const inboxWrite = new HandlerFunction(this, 'InboxWrite', {
      handler: 'rest-write',
      serviceName: 'inbox-write-api',
      description: 'POST read-all, seen-all and one read: moves read marks (one write however many are unread)',
      defaults,
      environment: { [ENV.CURSOR_SECRET]: cursorSecret, ...corsEnvironment },
    })
      // Mark one read: BatchGetItem of the id in the own inbox and visible feeds (after a Query of the
      // followed celebrities), PutItem of READ#<id>. Read-all / seen-all: conditional UpdateItem of
      // the mark, GetItem of the stored time when the condition fails without returning it.
      .readTable(inbox, ['dynamodb:BatchGetItem'])
      .readTable(readMarks, ['dynamodb:GetItem'])
      .writeTable(readMarks, ['dynamodb:PutItem', 'dynamodb:UpdateItem'])
      .readTable(graph, ['dynamodb:Query']);
    // Preferences live in the Graph table: BatchGetItem reads, one PutItem replaces the document.
    const preferences = new HandlerFunction(this, 'Preferences', {
      handler: 'rest-preferences',
      serviceName: 'preferences-api',
      description: 'GET and PUT /preferences (time zone, quiet hours, muted types)',
      defaults,
      environment: corsEnvironment,
    })
      .readTable(graph, ['dynamodb:BatchGetItem'])
      .writeTable(graph, ['dynamodb:PutItem']);
    this.restFunctions = { inboxRead, inboxWrite, preferences };

    const auth: InboxApiAuth = config.authMode === 'cognito' ? { mode: 'cognito', userPool: props.userPool!.userPool } : { mode: 'jwt', authorizer: this.authorizer! };
    this.api = new InboxApi(this, 'InboxApi', {
      functions: this.restFunctions,
      auth,
      logRetention: config.logRetentionDays,
      removalPolicy: config.removalPolicy,
      corsAllowOrigins: config.corsAllowOrigins,
    });

    if (config.liveDelivery) {
      this.live = new LiveDelivery(this, 'LiveDelivery', {
        tables,
        defaults,
        authorizer: this.authorizer!,
        urgentDelivery: this.pipeline.urgentDelivery,
        infoDelivery: this.pipeline.infoDelivery,
        infoBatchWindowSeconds: config.infoBatchWindowSeconds,
        scheduling: this.scheduling,
        logRetention: config.logRetentionDays,
        removalPolicy: config.removalPolicy,
      });
      // Read-state sync: a read or seen change is pushed to the user's connected devices. It reads
      // presence (BatchGetItem), then the read state and the counts (the Queries of REST read plus
      // the muted-types BatchGetItem); a 410 connection is cleaned up as in delivery (GetItem of the
      // reverse item, presence UpdateItem, BatchWriteItem deletes).
      inboxWrite
        .readTable(inbox, ['dynamodb:Query'])
        .readTable(readMarks, ['dynamodb:Query'])
        .readTable(graph, ['dynamodb:BatchGetItem'])
        .readTable(tables.tables.connections, ['dynamodb:BatchGetItem', 'dynamodb:GetItem'])
        .writeTable(tables.tables.connections, ['dynamodb:UpdateItem', 'dynamodb:BatchWriteItem'])
        .postToConnections(this.live.stage);
      // WebSocket stage logging needs the account's API Gateway CloudWatch role set by the REST API.
      const account = this.api.api.node.tryFindChild('Account');
      if (account) this.live.stage.node.addDependency(account);
    }

    this.operations = new Operations(this, 'Operations', {
      restApi: this.api.api,
      extraDeadLetterQueues: [
        { name: 'EventBridge rule targets', id: 'RuleTargets', queue: this.pipeline.ruleDeadLetterQueue },
        { name: 'EventBridge Scheduler targets', id: 'ScheduleTargets', queue: this.scheduling.deadLetterQueue },
      ],
      alarmTopicArn: config.alarmTopicArn,
    });

    new CfnOutput(this, 'RestApiUrl', { value: this.api.url, description: 'REST API base URL (…/v1/)' });
    if (this.live) new CfnOutput(this, 'WebSocketUrl', { value: this.live.url, description: 'WebSocket URL: connect with ?token=<jwt>' });
    new CfnOutput(this, 'EventBusName', { value: this.pipeline.bus.eventBusName, description: 'Producers PutEvents here' });
    new CfnOutput(this, 'EventBusArn', { value: this.pipeline.bus.eventBusArn });
    new CfnOutput(this, 'AuthMode', { value: config.authMode });
    new CfnOutput(this, 'ScheduleGroupName', { value: this.scheduling.group.scheduleGroupName });
    for (const type of this.pipeline.types) {
      new CfnOutput(this, `IntakeQueueUrl${resourceNameOf(type.detailType)}`, {
        value: type.intake.queue.queueUrl,
        description: `Intake queue of ${type.detailType} (the target of its deferred-send schedules)`,
      });
    }
  }
}
