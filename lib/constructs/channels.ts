import { Arn, ArnFormat, Duration, Stack } from 'aws-cdk-lib';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { SnsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { SMS_DAILY_LIMIT_DEFAULT, SMS_DAILY_LIMIT_PER_USER_DEFAULT, type SmsKeywordAnswers } from '../../src/core/channels/sms.js';
import { Construct } from 'constructs';
import { ENV } from '../../src/env.js';
import { offersChannel } from '../../src/core/model/channel.js';
import { ALERT_SUBSCRIBERS_KEY_PATTERN, ALERTING_KEY_PATTERN, CHANNEL_STATE_KEY_PATTERN, FOLLOWERS_KEY_PATTERN, PROFILE_PARTITION_KEY_PATTERN, USER_TRACE_KEY_PATTERN } from '../../src/core/model/keys.js';
import type { Platform } from '../../src/contract/channel-schemas.js';
import type { NotificationType } from '../../src/core/ports/notification-type.js';
import { acknowledge, acknowledgeWildcardResource } from '../nag.js';
import { HandlerFunction, type FunctionDefaults } from './handler-function.js';
import type { InboxTables } from './inbox-tables.js';
import { QueueWithDlq } from './queue-with-dlq.js';
import type { Scheduling } from './scheduling.js';
import type { Channel } from '../../src/contract/channels.js';

/** Mobile push through Amazon SNS: the platform applications you created with your APNs / FCM credentials. */
export interface PushChannelProps {
  /**
   * `arn:aws:sns:<region>:<account>:app/APNS/<name>` etc.; a platform left out cannot register devices.
   * A list of K applications per platform (one FCM project each: FCM allows about 600,000 messages
   * per minute per project) spreads the load: a device token sticks to one by a hash of the token.
   */
  platformApplicationArns: Partial<Record<Platform, string | string[]>>;
  /** Concurrent push consumer invocations (the SQS event source's maxConcurrency, 2..1000). Default 5. */
  maxConcurrency?: number;
}

/** Email through Amazon SES v2: a verified identity (domain or address) in this account and region. */
export interface EmailChannelProps {
  /** `arn:aws:ses:<region>:<account>:identity/<domain or address>`. */
  identityArn: string;
  /** `Name <address>` on that identity. */
  fromAddress: string;
  /** An SES configuration set (event destinations, suppression): its name. */
  configurationSetName?: string;
  /** Concurrent email consumer invocations. Default 2. */
  maxConcurrency?: number;
  /** The email queue's batching window: a burst of a user's notifications within it becomes one digest email. Default 60 s. */
  batchWindowSeconds?: number;
}

/**
 * SMS through AWS End User Messaging SMS: an origination identity (phone number, sender id or pool)
 * you registered in this account and region. Users opt in with the number their identity provider
 * verified (`PUT /sms`); STOP, START and HELP come back through two-way SMS to the construct's
 * inbound topic (`channels.sms.inboundTopic`: point the number's two-way channel at it).
 */
export interface SmsChannelProps {
  /** `arn:aws:sms-voice:<region>:<account>:phone-number/<id>` (or `pool/…`, `sender-id/…`): `SendTextMessage` is allowed on it only. */
  originationIdentityArn: string;
  /** An End User Messaging SMS configuration set (event destinations): its name. */
  configurationSetName?: string;
  /** Texts per user per UTC day (the per-user spend guard; 0 sends none). Default 10. Locally `SMS_DAILY_LIMIT_PER_USER`. */
  dailyLimitPerUser?: number;
  /** Texts per UTC day in all, keyword answers included (the global spend guard; 0 sends none). Default 10,000. Locally `SMS_DAILY_LIMIT`. */
  dailyLimit?: number;
  /** Concurrent SMS consumer invocations. Default 2. */
  maxConcurrency?: number;
  /** The opt-out list of the origination identity (the service's `Default` unless you gave it another): START takes a number off it (`DeleteOptedOutNumber`). */
  optOutListName?: string;
  /**
   * `true` when the origination identity has self-managed opt-outs (`SelfManagedOptOutsEnabled`): the
   * inbound function answers HELP, STOP and START itself (once per number, keyword and UTC day, within
   * `dailyLimit`). Default `false`: the service answers them with the number's keyword responses.
   */
  selfManagedOptOuts?: boolean;
  /** With self-managed opt-outs, the answers (1..320 characters). Carriers want the HELP answer to say who sends and how to reach support. */
  answers?: Partial<SmsKeywordAnswers>;
}

/** The channels beyond the socket; each is off until configured here. */
export interface ChannelsSettings {
  push?: PushChannelProps;
  email?: EmailChannelProps;
  sms?: SmsChannelProps;
  /** Messages per user per minute on each channel before the rest wait for one digest (0 = off). Default 5. */
  rateLimitPerMinute?: number;
}

export interface ChannelsProps extends ChannelsSettings {
  tables: InboxTables;
  defaults: FunctionDefaults;
  maxReceiveCount: number;
  deliveryJobSecret: string;
  scheduling: Scheduling;
  /** The fan-out function of each catalog type: types that offer a channel enqueue on its queue. */
  fanOuts: readonly { detailType: string; type: NotificationType; fanOut: HandlerFunction }[];
  /** The preferences REST function: it serves the devices, consent, email-address and unsubscribe routes. */
  preferences: HandlerFunction;
  /** The REST API's base URL (…/v1/): unsubscribe links point at its `/unsubscribe`. */
  restApiUrl: string;
}

/** Timeout of the channel consumers; their queues' visibility timeout is 6x it. */
export const CHANNEL_CONSUMER_TIMEOUT = Duration.seconds(30);

/** `arn:…:app/APNS/name` -> `arn:…:endpoint/APNS/name/*`: the endpoints of exactly that application. */
function endpointsOf(scope: Construct, applicationArn: string): string {
  const parts = Arn.split(applicationArn, ArnFormat.SLASH_RESOURCE_NAME);
  return Stack.of(scope).formatArn({ partition: parts.partition, service: 'sns', region: parts.region, account: parts.account, resource: 'endpoint', resourceName: `${parts.resourceName}/*`, arnFormat: ArnFormat.SLASH_RESOURCE_NAME });
}

/**
 * Mobile push (Amazon SNS mobile push: platform applications and endpoints for APNs and FCM) and
 * email (Amazon SES v2): one queue + DLQ and one consumer per configured channel, the fan-out
 * functions of the types that offer it allowed to enqueue, the preferences function allowed to
 * manage platform endpoints. Least privilege: `sns:Publish` on the platform applications' endpoints
 * only, `ses:SendEmail` on the identity (and configuration set) only. No Apple or Google credentials
 * are created here: the platform applications are yours.
 */
export class Channels extends Construct {
  readonly push?: { queue: QueueWithDlq; consumer: HandlerFunction; alertsQueue?: QueueWithDlq };
  /** The platform endpoints of the configured applications (the privacy job deletes an erased user's). */
  readonly pushEndpoints: string[] = [];
  readonly email?: { queue: QueueWithDlq; consumer: HandlerFunction; unsubscribeSecret: Secret };
  /** SMS: its queue and consumer, the inbound topic the number's two-way SMS publishes to, and the function that reads it (STOP, START, HELP). */
  readonly sms?: { queue: QueueWithDlq; consumer: HandlerFunction; inboundTopic: Topic; inbound: HandlerFunction };

  constructor(scope: Construct, id: string, props: ChannelsProps) {
    super(scope, id);
    const { graph, idempotency, readMarks } = props.tables.tables;
    const escalatesTo = (channel: Channel) => props.fanOuts.some(({ type }) => type.escalation?.channel === channel);
    const rateLimit = String(props.rateLimitPerMinute ?? 5);

    const consumer = (channel: Channel, queue: QueueWithDlq, environment: Record<string, string>, consume: { batchSize: number; maxConcurrency: number; maxBatchingWindow?: Duration }) => {
      const fn = new HandlerFunction(this, { push: 'PushConsumer', email: 'EmailConsumer', sms: 'SmsConsumer' }[channel], {
        handler: 'channel',
        serviceName: `channel-${channel}`,
        description: {
          push: 'Sends mobile pushes through SNS (consent, dedup, quiet hours, rate-limit digest)',
          email: 'Sends emails and digests through SES v2 (dedup, quiet hours, unsubscribe)',
          sms: 'Sends texts through End User Messaging SMS (opt-in, opt-out list, spend guards, dedup, quiet hours)',
        }[channel],
        defaults: props.defaults,
        timeout: CHANNEL_CONSUMER_TIMEOUT,
        environment: { [ENV.CHANNEL]: channel, [ENV.CHANNEL_QUEUE_ARN]: queue.queue.queueArn, [ENV.DELIVERY_JOB_SECRET]: props.deliveryJobSecret, [ENV.CHANNEL_RATE_LIMIT_PER_WINDOW]: rateLimit, ...environment },
      })
        // Preferences (BatchGetItem of PROFILE partitions) and the user's channel state (one Query of T#t#U#u#CHANNELS).
        .readTableKeys(graph, ['dynamodb:BatchGetItem'], [PROFILE_PARTITION_KEY_PATTERN])
        .readTableKeys(graph, ['dynamodb:Query'], [CHANNEL_STATE_KEY_PATTERN])
        // Erasure tombstones of the batch's recipients and authors (BatchGetItem): an erased user gets nothing.
        .readTable(idempotency, ['dynamodb:BatchGetItem'])
        // A held message comes back as a reference: its notification read from the recipient's inbox (BatchGetItem).
        .readTable(props.tables.tables.inbox, ['dynamodb:BatchGetItem'])
        // The recipients' trace records, in their own trace partitions of the Inbox table.
        .writeTableKeys(props.tables.tables.inbox, ['dynamodb:BatchWriteItem'], [USER_TRACE_KEY_PATTERN])
        // Dedup records (conditional put, delete after a throttled send), rate counters (conditional
        // UpdateItem per message; GetItem when the condition fails, to tell a retry from a message over
        // the limit), the schedule references of holds and delivery-trace records (BatchWriteItem).
        .writeTable(idempotency, ['dynamodb:PutItem', 'dynamodb:DeleteItem', 'dynamodb:UpdateItem', 'dynamodb:BatchWriteItem'])
        .readTable(idempotency, ['dynamodb:GetItem'])
        .consume(queue, { ...consume });
      // Held jobs (quiet hours, rate-limit digest) come back to this queue through one-time schedules.
      props.scheduling.allowScheduling(fn);
      props.scheduling.role.addToPrincipalPolicy(new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [queue.queue.queueArn] }));
      // A type's escalation channel is one it offers: its fan-out already sends there (the delayed escalation message too).
      for (const { type, fanOut } of props.fanOuts) if (offersChannel(type, channel)) fanOut.sendTo(queue.queue, { push: ENV.PUSH_QUEUE_URL, email: ENV.EMAIL_QUEUE_URL, sms: ENV.SMS_QUEUE_URL }[channel]);
      if (escalatesTo(channel)) {
        // Escalations at fire time: ONE BatchGetItem of the marks item and the exceptions (ReadMarks) and of the events' retraction records (Inbox: its BatchGetItem grant above covers them).
        fn.readTable(readMarks, ['dynamodb:BatchGetItem']);
      }
      return fn;
    };

    // An escalation waits on its queue up to SQS's 15-minute DelaySeconds: the age alarm allows for it.
    const queueOf = (queueId: string, purpose: string, channel: Channel) =>
      new QueueWithDlq(this, queueId, { consumerTimeout: CHANNEL_CONSUMER_TIMEOUT, maxReceiveCount: props.maxReceiveCount, maxMessageAge: Duration.minutes(escalatesTo(channel) ? 30 : 15), purpose });

    const arnsOf = (arns: string | string[] | undefined) => (arns === undefined ? [] : typeof arns === 'string' ? [arns] : arns).filter(Boolean);
    if (props.push && Object.values(props.push.platformApplicationArns).some((arns) => arnsOf(arns).length > 0)) {
      const perPlatform = (Object.entries(props.push.platformApplicationArns) as [Platform, string | string[] | undefined][]).map(([platform, arns]) => [platform, arnsOf(arns)] as const).filter(([, arns]) => arns.length > 0);
      const applications = perPlatform.flatMap(([platform, arns]) => arns.map((arn) => [platform, arn] as const));
      const endpoints = applications.map(([, arn]) => endpointsOf(this, arn));
      this.pushEndpoints.push(...endpoints);
      // K applications of a platform: one comma-separated variable (ARNs hold no comma).
      const platformEnv = Object.fromEntries(perPlatform.map(([platform, arns]) => [{ apns: ENV.SNS_PLATFORM_APPLICATION_APNS, apns_sandbox: ENV.SNS_PLATFORM_APPLICATION_APNS_SANDBOX, fcm: ENV.SNS_PLATFORM_APPLICATION_FCM }[platform], arns.join(',')]));
      const queue = queueOf('PushQueue', 'mobile push jobs (SNS)', 'push');
      const fn = consumer('push', queue, platformEnv, { batchSize: 10, maxConcurrency: props.push.maxConcurrency ?? 5 })
        // An invalid or disabled token's device is removed (DeleteItem, counter UpdateItem), in the channel state only.
        .writeTableKeys(graph, ['dynamodb:DeleteItem', 'dynamodb:UpdateItem'], [CHANNEL_STATE_KEY_PATTERN]);
      fn.allow(['sns:Publish'], endpoints);
      // SNS has no resource-level permissions for the endpoint management actions (the service
      // authorization reference lists no resource type for them): IAM authorizes them on "*" only,
      // so a grant naming the applications or endpoints never allowed them (found by the least-privilege check).
      const endpointManagement = "SNS supports no resource-level permissions for CreatePlatformEndpoint, GetEndpointAttributes, SetEndpointAttributes and DeleteEndpoint: AWS requires Resource '*' for them.";
      fn.allow(['sns:DeleteEndpoint'], ['*']);
      acknowledge(fn.executionRole, 'AwsSolutions-IAM5[Resource::*]', endpointManagement);
      // Devices: the preferences function creates, refreshes and deletes the endpoints of its users' tokens.
      props.preferences.allow(['sns:CreatePlatformEndpoint', 'sns:GetEndpointAttributes', 'sns:SetEndpointAttributes', 'sns:DeleteEndpoint'], ['*']);
      acknowledge(props.preferences.executionRole, 'AwsSolutions-IAM5[Resource::*]', endpointManagement);
      for (const [name, value] of Object.entries(platformEnv)) props.preferences.addEnvironment(name, value);
      // Post alerts (served where push is): the caller's follow pair (BatchGetItem of the account's
      // FOLLOWERS), the subscription under the account and its reference in the caller's ALERTING list.
      props.preferences
        .readTableKeys(graph, ['dynamodb:BatchGetItem'], [FOLLOWERS_KEY_PATTERN])
        .writeTableKeys(graph, ['dynamodb:PutItem', 'dynamodb:DeleteItem'], [ALERT_SUBSCRIBERS_KEY_PATTERN, ALERTING_KEY_PATTERN]);
      for (const endpoint of endpoints) {
        acknowledgeWildcardResource(fn.executionRole, endpoint, 'Platform endpoints are created per device token at run time; the Publish grant covers only the endpoints of the configured platform applications.');
      }
      const alertTypes = props.fanOuts.filter(({ type }) => type.followerAlerts);
      let alertsQueue: QueueWithDlq | undefined;
      if (alertTypes.length > 0) {
        // Post alerts: one job per post, then one per page of <= 50 subscribers (<= 1,000 devices); batch size 1 keeps an invocation at one page.
        alertsQueue = queueOf('AlertsQueue', 'post alert jobs (one page of alert subscribers each)', 'push');
        fn.consume(alertsQueue, { batchSize: 1, maxConcurrency: props.push.maxConcurrency ?? 5 }).sendTo(alertsQueue.queue, ENV.ALERTS_QUEUE_URL);
        // A page: the account's subscribers (Query of its ALERTS partition), whether each still follows (BatchGetItem of its FOLLOWERS partition).
        fn.readTableKeys(graph, ['dynamodb:Query'], [ALERT_SUBSCRIBERS_KEY_PATTERN]).readTableKeys(graph, ['dynamodb:BatchGetItem'], [FOLLOWERS_KEY_PATTERN]);
        for (const { fanOut } of alertTypes) fanOut.sendTo(alertsQueue.queue, ENV.ALERTS_QUEUE_URL);
      }
      this.push = { queue, consumer: fn, ...(alertsQueue ? { alertsQueue } : {}) };
    }

    if (props.email) {
      const unsubscribeSecret = new Secret(this, 'UnsubscribeSecret', {
        description: 'HMAC key of the one-click unsubscribe links in notification emails',
        generateSecretString: { passwordLength: 64, excludePunctuation: true },
      });
      acknowledge(unsubscribeSecret, 'AwsSolutions-SMG4', 'Rotating the unsubscribe key invalidates the links in emails already sent; it is rotated by updating the secret and redeploying.');
      const secret = unsubscribeSecret.secretValue.unsafeUnwrap();
      const queue = queueOf('EmailQueue', 'email jobs (SES v2)', 'email');
      const window = props.email.batchWindowSeconds ?? 60;
      const fn = consumer(
        'email',
        queue,
        {
          [ENV.SES_FROM_ADDRESS]: props.email.fromAddress,
          [ENV.SES_IDENTITY_ARN]: props.email.identityArn,
          ...(props.email.configurationSetName ? { [ENV.SES_CONFIGURATION_SET]: props.email.configurationSetName } : {}),
          [ENV.UNSUBSCRIBE_SECRET]: secret,
          // The stage URL ends with '/'; links append '/unsubscribe'.
          [ENV.UNSUBSCRIBE_BASE_URL]: props.restApiUrl.replace(/\/$/, ''),
        },
        { batchSize: window > 0 ? 100 : 10, maxConcurrency: props.email.maxConcurrency ?? 2, ...(window > 0 ? { maxBatchingWindow: Duration.seconds(window) } : {}) },
      );
      const region = Arn.split(props.email.identityArn, ArnFormat.SLASH_RESOURCE_NAME);
      const resources = [props.email.identityArn];
      if (props.email.configurationSetName) resources.push(Stack.of(this).formatArn({ partition: region.partition, service: 'ses', region: region.region, account: region.account, resource: 'configuration-set', resourceName: props.email.configurationSetName, arnFormat: ArnFormat.SLASH_RESOURCE_NAME }));
      fn.allow(['ses:SendEmail'], resources);
      props.preferences.addEnvironment(ENV.UNSUBSCRIBE_SECRET, secret);
      // Unsubscribe and the email address: PutItem on the user's CHANNELS partition.
      this.email = { queue, consumer: fn, unsubscribeSecret };
    }
    if (props.sms) {
      for (const [name, value] of Object.entries({ dailyLimitPerUser: props.sms.dailyLimitPerUser, dailyLimit: props.sms.dailyLimit })) {
        if (value !== undefined && (!Number.isInteger(value) || value < 0)) throw new Error(`${this.node.path}: channels.sms.${name} must be a whole number of texts >= 0, got ${value}`);
      }
      for (const [keyword, text] of Object.entries(props.sms.answers ?? {})) {
        if (text.length < 1 || text.length > 320) throw new Error(`${this.node.path}: channels.sms.answers.${keyword} must be 1..320 characters, got ${text.length}`);
      }
      if (props.sms.answers && !props.sms.selfManagedOptOuts) throw new Error(`${this.node.path}: channels.sms.answers is used with selfManagedOptOuts only (otherwise the service answers with the number's keyword responses)`);
      const optOutListName = props.sms.optOutListName ?? 'Default';
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(optOutListName)) throw new Error(`${this.node.path}: channels.sms.optOutListName must be an opt-out list name ([A-Za-z0-9_-], 1..64), got ${optOutListName}`);
      const queue = queueOf('SmsQueue', 'SMS jobs (End User Messaging SMS)', 'sms');
      const fn = consumer(
        'sms',
        queue,
        {
          [ENV.SMS_ORIGINATION_IDENTITY]: props.sms.originationIdentityArn,
          ...(props.sms.configurationSetName ? { [ENV.SMS_CONFIGURATION_SET]: props.sms.configurationSetName } : {}),
          [ENV.SMS_DAILY_LIMIT_PER_USER]: String(props.sms.dailyLimitPerUser ?? SMS_DAILY_LIMIT_PER_USER_DEFAULT),
          [ENV.SMS_DAILY_LIMIT]: String(props.sms.dailyLimit ?? SMS_DAILY_LIMIT_DEFAULT),
        },
        { batchSize: 10, maxConcurrency: props.sms.maxConcurrency ?? 2 },
      );
      // SendTextMessage from the origination identity only (and through the configuration set, when named).
      const identity = Arn.split(props.sms.originationIdentityArn, ArnFormat.SLASH_RESOURCE_NAME);
      const resources = [props.sms.originationIdentityArn];
      if (props.sms.configurationSetName) resources.push(Stack.of(this).formatArn({ partition: identity.partition, service: 'sms-voice', region: identity.region, account: identity.account, resource: 'configuration-set', resourceName: props.sms.configurationSetName, arnFormat: ArnFormat.SLASH_RESOURCE_NAME }));
      fn.allow(['sms-voice:SendTextMessage'], resources);
      // Two-way SMS: the service publishes each inbound text here (encrypted, TLS only); the inbound function acts on STOP, START and HELP.
      // A key of its own: the service publishing to the topic must be allowed to use it (an AWS managed key cannot say so).
      const inboundKey = new Key(this, 'SmsInboundKey', { description: 'Encrypts the inbound SMS topic', enableKeyRotation: true });
      inboundKey.grant(new ServicePrincipal('sms-voice.amazonaws.com'), 'kms:GenerateDataKey*', 'kms:Decrypt');
      const inboundTopic = new Topic(this, 'SmsInboundTopic', { displayName: 'Inbound SMS (two-way SMS of the origination number)', enforceSSL: true, masterKey: inboundKey });
      inboundTopic.addToResourcePolicy(new PolicyStatement({ actions: ['sns:Publish'], principals: [new ServicePrincipal('sms-voice.amazonaws.com')], resources: [inboundTopic.topicArn], conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } } }));
      const selfManaged = props.sms.selfManagedOptOuts ?? false;
      const answers = props.sms.answers ?? {};
      const inbound = new HandlerFunction(this, 'SmsInbound', {
        handler: 'sms-inbound',
        serviceName: 'sms-inbound',
        description: 'Reads inbound SMS (two-way SMS topic): STOP opts the number out, START / UNSTOP / YES back in, HELP is answered',
        defaults: props.defaults,
        timeout: Duration.seconds(10),
        environment: {
          [ENV.SMS_INBOUND_TOPIC_ARN]: inboundTopic.topicArn,
          [ENV.SMS_OPT_OUT_LIST]: optOutListName,
          ...(selfManaged
            ? {
                [ENV.SMS_SELF_MANAGED_OPT_OUTS]: 'true',
                [ENV.SMS_ORIGINATION_IDENTITY]: props.sms.originationIdentityArn,
                ...(props.sms.configurationSetName ? { [ENV.SMS_CONFIGURATION_SET]: props.sms.configurationSetName } : {}),
                [ENV.SMS_DAILY_LIMIT]: String(props.sms.dailyLimit ?? SMS_DAILY_LIMIT_DEFAULT),
                ...(answers.help ? { [ENV.SMS_ANSWER_HELP]: answers.help } : {}),
                ...(answers.stop ? { [ENV.SMS_ANSWER_STOP]: answers.stop } : {}),
                ...(answers.start ? { [ENV.SMS_ANSWER_START]: answers.start } : {}),
              }
            : {}),
        },
      })
        // The number's word (STOP / START) on the opt-out records only (their ids start SMS#OPTOUT#): read, then a conditional PutItem.
        .readTableKeys(idempotency, ['dynamodb:GetItem'], ['SMS#OPTOUT#*'])
        .writeTableKeys(idempotency, ['dynamodb:PutItem'], ['SMS#OPTOUT#*']);
      // START: off the service's opt-out list too (that list only).
      inbound.allow(['sms-voice:DeleteOptedOutNumber'], [Stack.of(this).formatArn({ partition: identity.partition, service: 'sms-voice', region: identity.region, account: identity.account, resource: 'opt-out-list', resourceName: optOutListName, arnFormat: ArnFormat.SLASH_RESOURCE_NAME })]);
      if (selfManaged) {
        // The answers: from the origination identity only, one record per number, keyword and day (SMS#ANSWER#), counted in the day's total (SMS#SPEND#).
        inbound.allow(['sms-voice:SendTextMessage'], resources);
        inbound.writeTableKeys(idempotency, ['dynamodb:PutItem', 'dynamodb:DeleteItem'], ['SMS#ANSWER#*']).writeTableKeys(idempotency, ['dynamodb:UpdateItem'], ['SMS#SPEND#*']);
      }
      inbound.addEventSource(new SnsEventSource(inboundTopic));
      this.sms = { queue, consumer: fn, inboundTopic, inbound };
    }
    // Devices, consent and email address: the preferences function reads and writes the CHANNELS partition, and nothing else of the graph.
    props.preferences
      .readTableKeys(graph, ['dynamodb:Query', 'dynamodb:GetItem'], [CHANNEL_STATE_KEY_PATTERN])
      .writeTableKeys(graph, ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'], [CHANNEL_STATE_KEY_PATTERN]);
  }
}
