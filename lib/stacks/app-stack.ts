import { RETRACTIONS_KEY_PATTERN } from '../../src/core/model/keys.js';
import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IEventBus } from 'aws-cdk-lib/aws-events';
import { acknowledge } from '../nag.js';
import { resolveCatalog } from '../catalog.js';
import type { Construct } from 'constructs';
import { resourceNameOf } from '../../src/notifications/index.js';
import { Channels, type ChannelsSettings } from '../constructs/channels.js';
import type { NotificationsConfig } from '../config.js';
import { HandlerFunction, type FunctionDefaults } from '../constructs/handler-function.js';
import { InboxApi, type InboxApiAuth } from '../constructs/inbox-api.js';
import type { InboxTables } from '../constructs/inbox-tables.js';
import type { RestFunction } from '../../src/contract/rest-routes.js';
import { DELIVERY_CONSUMER_TIMEOUT, LiveDelivery } from '../constructs/live-delivery.js';
import { NotificationPipeline } from '../constructs/notification-pipeline.js';
import { Operations } from '../constructs/operations.js';
import { Scheduling } from '../constructs/scheduling.js';
import { COUNTS_FLOOR_ATTRIBUTE, FEED_SHARD_KEY_PATTERN, FOLLOWED_CELEBS_PACK_KEY_PATTERN, PROFILE_PARTITION_KEY_PATTERN, SCHEDULE_REF_KEY_PATTERN, USER_PARTITION_KEY_PATTERN } from '../../src/core/model/keys.js';
import type { TenantUserPool } from '../constructs/tenant-user-pool.js';
import { ENV } from '../../src/env.js';
import type { NotificationType } from '../../src/core/ports/notification-type.js';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { useEncryptionKey } from '../constructs/data-protection.js';
import { PrivacyJobs } from '../constructs/privacy-jobs.js';
import { AuditTrail } from '../constructs/audit-trail.js';
import type { StatefulAudit } from './data-stack.js';

/** Settings and stateful resources the stateless part is built from. */
export interface StatelessProps {
  config: NotificationsConfig;
  tables: InboxTables;
  cursorSecret: Secret;
  /** Present in `cognito` auth mode. */
  userPool?: TenantUserPool;
  /** The notification types (default: the project catalog). */
  catalog?: readonly NotificationType[];
  /** The module exporting `catalog`, bundled into the functions in place of the package's catalog. */
  catalogEntry?: string;
  /** An existing bus to consume from (default: a new bus named by `eventBusName`). */
  eventBus?: IEventBus;
  /** Customer-managed key of the queues (the tables' key); every function is granted exactly its uses of it. */
  encryptionKey?: IKey;
  /** Mobile push and email (off unless configured): SNS platform applications, SES identity. */
  channels?: ChannelsSettings;
  /** The audit trail's archive and HMAC key (data stack), when configured. */
  audit?: StatefulAudit;
}

export interface AppStackProps extends StackProps, StatelessProps {}

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
  /** The erase and export job (queue, function, encrypted export bucket). */
  readonly privacyJobs: PrivacyJobs;
  readonly audit?: AuditTrail;

  constructor(scope: Construct, id: string, props: AppStackProps) {
    super(scope, id, props);
    const parts = buildStateless(this, props);
    this.pipeline = parts.pipeline;
    this.api = parts.api;
    if (parts.live) this.live = parts.live;
    this.scheduling = parts.scheduling;
    if (parts.authorizer) this.authorizer = parts.authorizer;
    this.restFunctions = parts.restFunctions;
    this.operations = parts.operations;
    this.privacyJobs = parts.privacyJobs;
    if (parts.audit) this.audit = parts.audit;
  }
}

/** What the stateless part creates (the App stack's and `NotificationInbox`'s public members). */
export interface StatelessParts {
  pipeline: NotificationPipeline;
  api: InboxApi;
  live?: LiveDelivery;
  scheduling: Scheduling;
  authorizer?: HandlerFunction;
  restFunctions: Record<RestFunction, HandlerFunction>;
  operations: Operations;
  /** The erase and export job. */
  privacyJobs: PrivacyJobs;
  /** Present when a channel is configured. */
  channels?: Channels;
  /** Present when the audit trail is configured. */
  audit?: AuditTrail;
}

/** Builds the stateless part into `scope` (a stack, or a construct in a host app's stack). */
export function buildStateless(scope: Construct, props: StatelessProps): StatelessParts {
  const { config, tables } = props;
  const catalog = resolveCatalog(props.catalog, props.catalogEntry);
  if (props.encryptionKey) useEncryptionKey(scope, props.encryptionKey);
  let authorizer: HandlerFunction | undefined;
  let live: LiveDelivery | undefined;
  const { inbox, readMarks, graph } = tables.tables;
  const defaults: FunctionDefaults = {
    logLevel: config.logLevel,
    logRetention: config.logRetentionDays,
    removalPolicy: config.removalPolicy,
    environment: {
      [ENV.FEED_SHARDS]: String(config.feedShards),
      [ENV.INBOX_TTL_DAYS]: String(config.ttlDays),
      [ENV.TENANT_CLAIM]: config.tenantClaim,
      // Retention settings reach the functions only when set, so the default template is unchanged.
      ...(config.dedupTtlSeconds !== undefined ? { [ENV.DELIVERY_RECORD_TTL_SECONDS]: String(config.dedupTtlSeconds) } : {}),
      ...(config.traceTtlDays !== undefined ? { [ENV.TRACE_TTL_DAYS]: String(config.traceTtlDays) } : {}),
    },
    ...(catalog.entry ? { catalogEntry: catalog.entry } : {}),
  };
  // REST functions answer browsers on other origins (src/handlers/rest/http.ts withCors).
  const corsEnvironment = { [ENV.CORS_ALLOW_ORIGINS]: config.corsAllowOrigins.join(',') };
  // The cursor key is resolved by CloudFormation at deploy (dynamic reference), so it is in
  // neither the template nor the source, and handlers read it from env once per container with
  // no Secrets Manager call on the request path. Only functions that sign or verify cursors get it.
  const cursorSecret = props.cursorSecret.secretValue.unsafeUnwrap();
  // HMAC key of delivery jobs: only the fan-out and REST write's snooze (sign) and delivery (verifies) get it,
  // so a message another principal puts on a delivery queue is never pushed.
  const jobSecret = new Secret(scope, 'DeliveryJobSecret', {
    description: 'HMAC key that signs delivery jobs between fan-out and delivery',
    generateSecretString: { passwordLength: 64, excludePunctuation: true },
  });
  acknowledge(jobSecret, 'AwsSolutions-SMG4', 'Rotating the delivery-job key only drops jobs in flight (their recipients catch up over REST); it is rotated by updating the secret and redeploying.');
  const deliveryJobSecret = jobSecret.secretValue.unsafeUnwrap();
  // The snooze comebacks' own key: REST write (internet-facing) signs, urgent delivery verifies, and
  // delivery accepts it for a one-recipient urgent comeback only, so REST write never holds the job key.
  const snoozeSecret = new Secret(scope, 'SnoozeJobSecret', {
    description: 'HMAC key that signs snooze comeback jobs between REST write and urgent delivery',
    generateSecretString: { passwordLength: 64, excludePunctuation: true },
  });
  acknowledge(snoozeSecret, 'AwsSolutions-SMG4', 'Rotating the snooze key only drops comebacks already scheduled (the comeback item is in the inbox regardless); it is rotated by updating the secret and redeploying.');
  const snoozeJobSecret = snoozeSecret.secretValue.unsafeUnwrap();

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
    authorizer = new HandlerFunction(scope, 'Authorizer', {
      handler: 'authorizer',
      serviceName: 'authorizer',
      description: 'Verifies the JWT (issuer, audience, signature from JWKS) and passes tenant and user on',
      defaults,
      environment: { [ENV.JWT_ISSUER]: jwt.issuer, [ENV.JWT_AUDIENCE]: jwt.audience, [ENV.JWKS_URL]: jwt.jwksUrl, ...(config.fixedTenant ? { [ENV.FIXED_TENANT]: config.fixedTenant } : {}) },
    });
  }

  const pipeline = new NotificationPipeline(scope, 'Pipeline', {
    tables,
    defaults,
    eventBusName: config.eventBusName,
    maxReceiveCount: config.maxReceiveCount,
    celebrityThreshold: config.celebrityThreshold,
    deliveryConsumerTimeout: DELIVERY_CONSUMER_TIMEOUT,
    infoBatchWindowSeconds: config.infoBatchWindowSeconds,
    deliveryJobSecret,
    catalog: catalog.types,
    ...(props.eventBus ? { eventBus: props.eventBus } : {}),
    archiveRetentionDays: config.archiveRetentionDays,
  });

  const scheduling = new Scheduling(scope, 'Scheduling', {
    targets: [...pipeline.types.map((type) => type.intake.queue), pipeline.urgentDelivery.queue],
    snoozeTarget: pipeline.urgentDelivery.queue,
    removalPolicy: config.removalPolicy,
  });
  for (const type of pipeline.types) scheduling.allowScheduling(type.fanOut);

  const inboxRead = new HandlerFunction(scope, 'InboxRead', {
    handler: 'rest-read',
    serviceName: 'inbox-read-api',
    description: 'GET /notifications and /notifications/counts (cannot write the inbox; moves only the counts floor)',
    defaults,
    environment: { [ENV.CURSOR_SECRET]: cursorSecret, ...corsEnvironment },
  })
    // Pages and counts: Query of the own inbox and feed shards, of the read state, of the followed
    // celebrities; muted types are one BatchGetItem of the preferences item. A page that merges
    // celebrity feeds gets the feed items its heads place in it with one BatchGetItem (feed shards only).
    .readTable(inbox, ['dynamodb:Query'])
    .readTableKeys(inbox, ['dynamodb:BatchGetItem'], [FEED_SHARD_KEY_PATTERN])
    // The read state: Query of the marks and exceptions; the exceptions of a page's ids (BatchGetItem)
    // and the marks item (GetItem), as the least-privilege check recorded them (AWS denied both before).
    .readTable(readMarks, ['dynamodb:Query', 'dynamodb:GetItem', 'dynamodb:BatchGetItem'])
    // Graph: the followed celebrities' pack (Query) and the muted types (BatchGetItem of preferences) only.
    .readTableKeys(graph, ['dynamodb:Query'], [FOLLOWED_CELEBS_PACK_KEY_PATTERN])
    .readTableKeys(graph, ['dynamodb:BatchGetItem'], [PROFILE_PARTITION_KEY_PATTERN])
    // Counts move the counts floor of the marks item (src/core/model/counts-floor.ts): one conditional
    // UpdateItem that may name no attribute but the key and `countsFloor`.
    .updateTableAttributes(readMarks, [USER_PARTITION_KEY_PATTERN], [COUNTS_FLOOR_ATTRIBUTE]);
  const inboxWrite = new HandlerFunction(scope, 'InboxWrite', {
    handler: 'rest-write',
    serviceName: 'inbox-write-api',
    description: 'POST read-all, seen-all and one read: moves read marks (one write however many are unread)',
    defaults,
    environment: { [ENV.CURSOR_SECRET]: cursorSecret, ...corsEnvironment },
  })
    // A per-item action looks its ids up in ONE BatchGetItem over three tables (own partition and the
    // celebrity posts log; the marks and the ids' exceptions; the followed-celebrities pack), the
    // snoozed items of comebacks (BatchGetItem) and the tenant's retractions (Query, that partition
    // only), then writes the exceptions (PutItem, BatchWriteItem) and names ids marked unread below
    // the read mark (UpdateItem). Read-all / seen-all / archive-all-read: UpdateItem of the marks item;
    // a read-all behind the mark reads it (GetItem) and adds itself with one more UpdateItem.
    .readTable(inbox, ['dynamodb:BatchGetItem'])
    .readTableKeys(inbox, ['dynamodb:Query'], [RETRACTIONS_KEY_PATTERN])
    .readTable(readMarks, ['dynamodb:GetItem', 'dynamodb:BatchGetItem'])
    // Bulk read: the READ# items go as BatchWriteItems of 25 (the ReadMarks table holds user partitions only).
    .writeTable(readMarks, ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:BatchWriteItem'])
    .readTable(graph, ['dynamodb:BatchGetItem']);
  // Snooze (a narrow, deliberate exception to "REST write moves read marks only"): the comeback is
  // a copy of one item the caller already owns, written into the caller's own partition (key from
  // the verified claims), and one schedule that puts an urgent job for it on the urgent queue at the
  // return time. This function is internet-facing, so each grant is the narrowest IAM can say: one
  // PutItem whose partition key is a user partition (no BatchWriteItem, which IAM cannot limit to
  // puts, no delete, no feed, log or retraction partition), a key that signs one-recipient comebacks
  // only, and CreateSchedule of snooze-* schedules with a role that sends to the urgent queue only.
  inboxWrite.addEnvironment(ENV.SNOOZE_QUEUE_ARN, pipeline.urgentDelivery.queue.queueArn);
  inboxWrite.addEnvironment(ENV.SNOOZE_JOB_SECRET, snoozeJobSecret);
  inboxWrite.writeTableKeys(inbox, ['dynamodb:PutItem'], [USER_PARTITION_KEY_PATTERN], [FEED_SHARD_KEY_PATTERN]);
  scheduling.allowSnoozeScheduling(inboxWrite);
  // The comeback's schedule is referenced for the user's erasure: schedule reference records only (LeadingKeys).
  inboxWrite.writeTableKeys(tables.tables.idempotency, ['dynamodb:BatchWriteItem'], [SCHEDULE_REF_KEY_PATTERN]);
  // Preferences live in the Graph table: BatchGetItem reads, one PutItem replaces the document.
  const preferences = new HandlerFunction(scope, 'Preferences', {
    handler: 'rest-preferences',
    serviceName: 'preferences-api',
    description: 'GET and PUT /preferences (time zone, quiet hours, muted types)',
    defaults,
    environment: corsEnvironment,
  })
    // Only the PROFILE partition (the preferences item beside the profile): not the follow graph.
    .readTableKeys(graph, ['dynamodb:BatchGetItem'], [PROFILE_PARTITION_KEY_PATTERN])
    .writeTableKeys(graph, ['dynamodb:PutItem'], [PROFILE_PARTITION_KEY_PATTERN]);
  const restFunctions: Record<RestFunction, HandlerFunction> = { inboxRead, inboxWrite, preferences };

  const auth: InboxApiAuth = config.authMode === 'cognito' ? { mode: 'cognito', userPool: props.userPool!.userPool } : { mode: 'jwt', authorizer: authorizer! };
  const api = new InboxApi(scope, 'InboxApi', {
    functions: restFunctions,
    auth,
    logRetention: config.logRetentionDays,
    removalPolicy: config.removalPolicy,
    corsAllowOrigins: config.corsAllowOrigins,
    ...(props.channels?.email ? { publicRoutes: true } : {}),
  });

  if (config.liveDelivery) {
    live = new LiveDelivery(scope, 'LiveDelivery', {
      tables,
      defaults,
      authorizer: authorizer!,
      urgentDelivery: pipeline.urgentDelivery,
      infoDelivery: pipeline.infoDelivery,
      infoBatchWindowSeconds: config.infoBatchWindowSeconds,
      deliveryJobSecret,
      snoozeJobSecret,
      deliveryMaxConcurrency: config.deliveryMaxConcurrency,
      scheduling: scheduling,
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
      .readTableKeys(graph, ['dynamodb:Query'], [FOLLOWED_CELEBS_PACK_KEY_PATTERN])
      .readTable(tables.tables.connections, ['dynamodb:BatchGetItem', 'dynamodb:GetItem'])
      .writeTable(tables.tables.connections, ['dynamodb:UpdateItem', 'dynamodb:BatchWriteItem'])
      .postToConnections(live.stage);
    // WebSocket stage logging needs the account's API Gateway CloudWatch role set by the REST API.
    const account = api.api.node.tryFindChild('Account');
    if (account) live.stage.node.addDependency(account);
  }

  // Before Operations: it discovers the channel queues (DLQ alarms) and consumers.
  const channels =
    props.channels && (props.channels.push || props.channels.email || props.channels.sms)
      ? new Channels(scope, 'Channels', {
          ...props.channels,
          tables,
          defaults,
          maxReceiveCount: config.maxReceiveCount,
          deliveryJobSecret,
          scheduling,
          fanOuts: pipeline.types.map((typePipeline, index) => ({ detailType: typePipeline.detailType, type: catalog.types[index]!, fanOut: typePipeline.fanOut })),
          preferences,
          restApiUrl: api.url,
        })
      : undefined;

  // The erase and export job (before Operations, which alarms on its queue and function).
  const privacyJobs = new PrivacyJobs(scope, 'PrivacyJobs', {
    tables,
    defaults,
    bus: pipeline.bus,
    ruleDeadLetterQueue: pipeline.ruleDeadLetterQueue,
    maxReceiveCount: config.maxReceiveCount,
    scheduling,
    removalPolicy: config.removalPolicy,
    ...(live ? { liveStage: live.stage } : {}),
    ...(channels?.push ? { pushEndpoints: channels.pushEndpoints } : {}),
    ...(props.encryptionKey ? { encryptionKey: props.encryptionKey } : {}),
  });
  // Audit trail hook (lib/constructs/audit-trail.ts): every function that records decisions writes to it; before Operations (it alarms the backlog queue and the drainer).
  const audit = props.audit
    ? new AuditTrail(scope, 'AuditTrail', {
        stream: { name: props.audit.stream.deliveryStream.ref, arn: props.audit.stream.deliveryStream.attrArn },
        pseudonymKey: props.audit.pseudonymKey,
        idempotency: tables.tables.idempotency,
        defaults,
        maxReceiveCount: config.maxReceiveCount,
        ...(config.alarmTopicArn ? { alarmTopicArn: config.alarmTopicArn } : {}),
      })
    : undefined;
  const recorders = [...pipeline.types.map((type) => type.fanOut), ...(live ? [live.urgentDelivery, live.infoDelivery] : []), ...(channels?.push ? [channels.push.consumer] : []), ...(channels?.email ? [channels.email.consumer] : []), ...(channels?.sms ? [channels.sms.consumer] : [])];
  if (audit) for (const fn of recorders) audit.record(fn);
  if (audit) {
    new CfnOutput(scope, 'AuditBacklogQueueUrl', { value: audit.backlog.queue.queueUrl, description: 'Audit records waiting for the archive (drained automatically; DLQ: npm run dlq)' });
  }

  const operations = new Operations(scope, 'Operations', {
    restApi: api.api,
    extraDeadLetterQueues: [
      { name: 'EventBridge rule targets', id: 'RuleTargets', queue: pipeline.ruleDeadLetterQueue },
      { name: 'the intake queues of every notification type', id: 'Intake', queue: pipeline.intakeDeadLetterQueue },
      { name: 'the urgent intake queues of every notification type', id: 'UrgentIntake', queue: pipeline.urgentIntakeDeadLetterQueue },
      { name: 'EventBridge Scheduler targets', id: 'ScheduleTargets', queue: scheduling.deadLetterQueue },
    ],
    alarmTopicArn: config.alarmTopicArn,
  });

  new CfnOutput(scope, 'RestApiUrl', { value: api.url, description: 'REST API base URL (…/v1/)' });
  if (live) new CfnOutput(scope, 'WebSocketUrl', { value: live.url, description: 'WebSocket URL: connect with ?token=<jwt>' });
  new CfnOutput(scope, 'EventBusName', { value: pipeline.bus.eventBusName, description: 'Producers PutEvents here' });
  new CfnOutput(scope, 'EventBusArn', { value: pipeline.bus.eventBusArn });
  new CfnOutput(scope, 'AuthMode', { value: config.authMode });
  new CfnOutput(scope, 'PrivacyJobQueueUrl', { value: privacyJobs.queue.queue.queueUrl, description: 'Erase and export jobs: npm run erase|export -- --job-queue <url> (or publish user.erased / user.export.requested on the bus)' });
  new CfnOutput(scope, 'ExportBucketName', { value: privacyJobs.bucket.bucketName, description: 'Encrypted user exports (presigned links, 7-day expiry)' });
  new CfnOutput(scope, 'ScheduleGroupName', { value: scheduling.group.scheduleGroupName });
  for (const type of pipeline.types) {
    new CfnOutput(scope, `IntakeQueueUrl${resourceNameOf(type.detailType)}`, {
      value: type.intake.queue.queueUrl,
      description: `Intake queue of ${type.detailType} (the target of its deferred-send schedules)`,
    });
  }

  return { pipeline, api, live, scheduling, authorizer, restFunctions, operations, privacyJobs, ...(channels ? { channels } : {}), ...(audit ? { audit } : {}) };
}
