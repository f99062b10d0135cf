/**
 * `NotificationInbox`: the whole notification system as one construct a team adds to its own stack
 * (tables, cursor key, optional user pool, bus or your bus, pipeline, REST and WebSocket APIs,
 * schedules, alarms). `buildNotificationsApp` is the ready-made two-stack variant of the same parts.
 */
import type { RemovalPolicy } from 'aws-cdk-lib';
import type { IEventBus } from 'aws-cdk-lib/aws-events';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import type { NotificationType } from '../src/core/ports/notification-type.js';
import { resolveCatalog } from './catalog.js';
import { configFromContext, type JwtSettings, type NotificationsConfig } from './config.js';
import type { HandlerFunction } from './constructs/handler-function.js';
import type { InboxApi } from './constructs/inbox-api.js';
import type { InboxTables } from './constructs/inbox-tables.js';
import type { LiveDelivery } from './constructs/live-delivery.js';
import type { NotificationPipeline } from './constructs/notification-pipeline.js';
import type { Operations } from './constructs/operations.js';
import type { PrivacyJobs } from './constructs/privacy-jobs.js';
import type { Scheduling } from './constructs/scheduling.js';
import type { Channels, ChannelsSettings } from './constructs/channels.js';
import type { AuditTrail } from './constructs/audit-trail.js';
import type { TenantUserPool } from './constructs/tenant-user-pool.js';
import type { RestFunction } from '../src/contract/rest-routes.js';
import { buildStateful } from './stacks/data-stack.js';
import { buildStateless } from './stacks/app-stack.js';

/** How callers authenticate: a user pool this construct creates, or your identity provider's JWTs. */
export type NotificationInboxAuth =
  | { mode: 'cognito' }
  | (JwtSettings & {
      mode: 'jwt';
      /** Claim name or dotted path of the tenant (default `custom:tenant`), e.g. `org.id` or `https://example.com/tenant`. */
      tenantClaim?: string;
      /** Single-tenant apps: every token's tenant. */
      fixedTenant?: string;
    });

/** Settings with their documented defaults (docs/settings.md); auth, bus, removal and alarms are props of their own. */
export type NotificationInboxSettings = Partial<
  Pick<
    NotificationsConfig,
    | 'eventBusName'
    | 'celebrityThreshold'
    | 'feedShards'
    | 'infoBatchWindowSeconds'
    | 'ttlDays'
    | 'maxReceiveCount'
    | 'logRetentionDays'
    | 'logLevel'
    | 'liveDelivery'
    | 'corsAllowOrigins'
    | 'dedupTtlSeconds'
    | 'traceTtlDays'
    | 'archiveRetentionDays'
    | 'customerManagedKey'
    | 'auditRetentionDays'
    | 'auditDestination'
    | 'auditBufferSeconds'
  >
>;

export interface NotificationInboxProps {
  /** Default: `{ mode: 'cognito' }`. */
  auth?: NotificationInboxAuth;
  /**
   * The notification types the construct builds a rule, intake queue and fan-out function for
   * (default: the package's catalog). Types of your own need `catalogEntry` too.
   */
  catalog?: readonly NotificationType[];
  /**
   * Absolute path of your catalog module (`.ts`/`.js`) that exports `catalog` (the same list as
   * `catalog`): every function that reads the catalog (fan-out, REST read/write/preferences,
   * delivery, WebSocket, promotion) bundles it in place of the package's. Write types against
   * `serverless-notifications/catalog`; reuse the package's from `serverless-notifications/catalog/built-in`.
   */
  catalogEntry?: string;
  /** Consume from an existing bus; default a new bus (`settings.eventBusName`) with a 30-day archive. */
  eventBus?: IEventBus;
  settings?: NotificationInboxSettings;
  /** Tables, user pool, cursor key and log groups on deletion (default RETAIN). */
  removalPolicy?: RemovalPolicy;
  /** Every alarm notifies this topic. */
  alarmTopic?: ITopic;
  /**
   * Your KMS key for every table and queue (each function gets exactly the kms actions its calls
   * need). Its key policy must let events.amazonaws.com GenerateDataKey/Decrypt (rule targets).
   * Or set `settings.customerManagedKey` for a key the construct creates. Default: AWS-managed keys.
   */
  encryptionKey?: IKey;
  /**
   * Mobile push (your SNS platform applications for APNs / FCM) and email (your SES identity and
   * configuration set). Each channel is off until configured here (docs/channels.md).
   */
  channels?: ChannelsSettings;
}

export class NotificationInbox extends Construct {
  readonly config: NotificationsConfig;
  readonly tables: InboxTables;
  readonly cursorSecret: Secret;
  readonly userPool?: TenantUserPool;
  readonly pipeline: NotificationPipeline;
  readonly api: InboxApi;
  readonly live?: LiveDelivery;
  readonly scheduling: Scheduling;
  readonly authorizer?: HandlerFunction;
  readonly restFunctions: Record<RestFunction, HandlerFunction>;
  readonly operations: Operations;
  /** The erase and export job (queue, function, encrypted export bucket). */
  readonly privacyJobs: PrivacyJobs;
  /** The customer-managed key of tables and queues, when one is used. */
  readonly encryptionKey?: IKey;
  /** The push and email queues and consumers (when configured). */
  readonly channels?: Channels;
  /** The audit trail (when `settings.auditRetentionDays` or `settings.auditDestination` is set). */
  readonly audit?: AuditTrail;

  constructor(scope: Construct, id: string, props: NotificationInboxProps = {}) {
    super(scope, id);
    // Before any resource, so a bad catalog fails fast with all its problems.
    resolveCatalog(props.catalog, props.catalogEntry);
    const defaults = configFromContext({ tryGetContext: () => undefined });
    const auth = props.auth ?? { mode: 'cognito' };
    this.config = {
      ...defaults,
      ...props.settings,
      authMode: auth.mode,
      ...(auth.mode === 'jwt' ? { jwt: { issuer: auth.issuer, audience: auth.audience, jwksUrl: auth.jwksUrl } } : {}),
      ...(auth.mode === 'jwt' && auth.tenantClaim ? { tenantClaim: auth.tenantClaim } : {}),
      ...(auth.mode === 'jwt' && auth.fixedTenant ? { fixedTenant: auth.fixedTenant } : {}),
      ...(props.removalPolicy !== undefined ? { removalPolicy: props.removalPolicy } : {}),
      ...(props.alarmTopic ? { alarmTopicArn: props.alarmTopic.topicArn } : {}),
    };
    const stateful = buildStateful(this, this.config, props.encryptionKey ? { encryptionKey: props.encryptionKey } : {});
    this.tables = stateful.tables;
    if (stateful.encryptionKey) this.encryptionKey = stateful.encryptionKey;
    this.cursorSecret = stateful.cursorSecret;
    if (stateful.userPool) this.userPool = stateful.userPool;
    const stateless = buildStateless(this, {
      config: this.config,
      ...stateful,
      ...(props.catalog ? { catalog: props.catalog } : {}),
      ...(props.catalogEntry ? { catalogEntry: props.catalogEntry } : {}),
      ...(props.eventBus ? { eventBus: props.eventBus } : {}),
      ...(props.channels ? { channels: props.channels } : {}),
    });
    this.pipeline = stateless.pipeline;
    this.api = stateless.api;
    if (stateless.live) this.live = stateless.live;
    this.scheduling = stateless.scheduling;
    if (stateless.authorizer) this.authorizer = stateless.authorizer;
    this.restFunctions = stateless.restFunctions;
    this.operations = stateless.operations;
    this.privacyJobs = stateless.privacyJobs;
    if (stateless.channels) this.channels = stateless.channels;
    if (stateless.audit) this.audit = stateless.audit;
  }
}
