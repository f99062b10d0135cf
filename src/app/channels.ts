/**
 * The channel consumers (push: SNS mobile push; email: SES v2): their config and their composition,
 * and the builders of the devices / consent / email-address / unsubscribe routes the preferences
 * function serves.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { SNSClient } from '@aws-sdk/client-sns';
import * as z from 'zod';
import { ChannelRepository } from '../adapters/dynamo/channel-repository.js';
import { AlertSubscriptionRepository } from '../adapters/dynamo/alert-subscriptions.js';
import { ChannelSendLedger } from '../adapters/dynamo/channel-send-ledger.js';
import { DynamoEscalationState } from '../adapters/dynamo/escalation-state.js';
import { SesEmailProvider } from '../adapters/ses/ses-email-provider.js';
import { SnsPushProvider } from '../adapters/sns/sns-push-provider.js';
import { ChannelDelivery, SENDING_TIMEOUT_MS_DEFAULT, type ChannelTypeInfo } from '../core/channels/channel-delivery.js';
import { signedMessageBody } from '../core/jobs/delivery-job-signature.js';
import type { Scheduler } from '../core/ports/scheduler.js';
import { RATE_LIMIT_WINDOW_MS } from '../core/preferences/delivery-policy.js';
import { PREFERENCES_CACHE_TTL_MS_DEFAULT } from '../core/preferences/preferences-cache.js';
import type { Env } from '../env.js';
import { createChannelHandler, type AlertPages } from '../handlers/channel-handler.js';
import { SqsAlertJobQueue } from '../adapters/sqs/sqs-alert-job-queue.js';
import { alertPage } from '../core/channels/post-alerts.js';
import { followGraphRepository } from './follow-graph.js';
import { smsChannel, smsProviderOf, smsProviderShape, type SmsProviderConfig } from './sms.js';
import { findNotificationType } from '../notifications/deployed.js';
import { ConfigError, integer, optionalString, parseEnv, required, unsetIfEmpty } from './config-parsing.js';
import { observability, observabilityConfigFromEnv, type ObservabilityConfig } from './parts-observability.js';
import { eventBridgeScheduler, sqsClient } from './parts-queues.js';
import { withAuditBarrier } from './audit/audit-trail.js';
import { installAuditTrailFromEnv } from './audit/aws.js';
import { clientOptions, createParts, documentClient, erasedUsers, inboxRepository, instrumented, preferencesCache, referencingScheduler, type Parts } from './parts.js';
import { schedulerOf, schedulerShape, type PreferencesCacheConfig, type SchedulerConfig } from './shared-config.js';

/** SNS platform application ARNs per platform; a platform without one cannot register devices. */
export interface PushProviderConfig {
  /** One ARN or K per platform (`SNS_PLATFORM_APPLICATION_FCM=arn1,arn2`): a user's devices stick to one by a hash of their id. */
  platformApplications: { apns?: string | string[]; apns_sandbox?: string | string[]; fcm?: string | string[] };
  /** The local SNS stand-in (unset on AWS). */
  endpoint?: string;
}

export interface EmailProviderConfig {
  fromAddress: string;
  identityArn?: string;
  configurationSetName?: string;
  /** The local SES stand-in (unset on AWS). */
  endpoint?: string;
}

/** The consumer of one channel queue (`CHANNEL` = push | email | sms). */
export interface ChannelConsumerConfig extends PreferencesCacheConfig {
  channel: 'push' | 'email' | 'sms';
  idempotencyTable: string;
  /** Held messages come back as references: their notifications are read from the recipient's inbox. */
  inboxTable: string;
  deliveryJobSecret: string;
  /** This channel's queue: held jobs re-enter it by a one-time schedule. */
  channelQueueArn: string;
  rateLimitPerWindow: number;
  rateLimitWindowMs: number;
  parallelism: number;
  /** At-least-once types: a `sending` claim older than this is taken over (default 2 min: 4x the consumer's 30 s timeout, under its queue's 180 s visibility). */
  sendingTimeoutMs?: number;
  push?: PushProviderConfig;
  email?: EmailProviderConfig & { unsubscribeSecret: string; unsubscribeBaseUrl: string };
  sms?: SmsProviderConfig;
  /** Push: the post alerts queue (`ALERTS_QUEUE_URL`), where each page's job enqueues the next. */
  alertsQueueUrl?: string;
  /** Escalations to this channel read the marks and exceptions (ReadMarks) and the retraction records (Inbox); without both, an escalation job is skipped. */
  escalation?: { inboxTable: string; readMarksTable: string };
}

export const CHANNEL_RATE_LIMIT_PER_WINDOW_DEFAULT = 5;
export const CHANNEL_PARALLELISM_DEFAULT = 8;

export const pushProviderShape = {
  SNS_PLATFORM_APPLICATION_APNS: optionalString,
  SNS_PLATFORM_APPLICATION_APNS_SANDBOX: optionalString,
  SNS_PLATFORM_APPLICATION_FCM: optionalString,
  SNS_ENDPOINT: optionalString,
};
/** `arn` or `arn1,arn2,...` (ARNs hold no comma). */
const arnsOf = (value: string) => {
  const arns = value.split(',').map((arn) => arn.trim()).filter(Boolean);
  return arns.length === 1 ? arns[0]! : arns;
};
export const pushProviderOf = (env: z.output<z.ZodObject<typeof pushProviderShape>>): PushProviderConfig => ({
  platformApplications: {
    ...(env.SNS_PLATFORM_APPLICATION_APNS ? { apns: arnsOf(env.SNS_PLATFORM_APPLICATION_APNS) } : {}),
    ...(env.SNS_PLATFORM_APPLICATION_APNS_SANDBOX ? { apns_sandbox: arnsOf(env.SNS_PLATFORM_APPLICATION_APNS_SANDBOX) } : {}),
    ...(env.SNS_PLATFORM_APPLICATION_FCM ? { fcm: arnsOf(env.SNS_PLATFORM_APPLICATION_FCM) } : {}),
  },
  ...(env.SNS_ENDPOINT ? { endpoint: env.SNS_ENDPOINT } : {}),
});

export function channelConsumerConfigFromEnv(env: Env): ChannelConsumerConfig & { scheduler: SchedulerConfig } {
  const parsed = parseEnv(
    'channel consumer',
    {
      CHANNEL: z.preprocess(unsetIfEmpty, z.enum(['push', 'email', 'sms'])),
      GRAPH_TABLE: required,
      IDEMPOTENCY_TABLE: required,
      INBOX_TABLE: required,
      DELIVERY_JOB_SECRET: required,
      CHANNEL_QUEUE_ARN: required,
      PREFERENCES_CACHE_TTL_MS: integer(PREFERENCES_CACHE_TTL_MS_DEFAULT, 0),
      CHANNEL_RATE_LIMIT_PER_WINDOW: integer(CHANNEL_RATE_LIMIT_PER_WINDOW_DEFAULT, 0),
      RATE_LIMIT_WINDOW_MS: integer(RATE_LIMIT_WINDOW_MS, 1),
      CHANNEL_PARALLELISM: integer(CHANNEL_PARALLELISM_DEFAULT, 1),
      CHANNEL_SENDING_TIMEOUT_MS: integer(SENDING_TIMEOUT_MS_DEFAULT, 1),
      READ_MARKS_TABLE: optionalString,
      ALERTS_QUEUE_URL: optionalString,
      ...pushProviderShape,
      ...smsProviderShape,
      SES_FROM_ADDRESS: optionalString,
      SES_IDENTITY_ARN: optionalString,
      SES_CONFIGURATION_SET: optionalString,
      SES_ENDPOINT: optionalString,
      UNSUBSCRIBE_SECRET: optionalString,
      UNSUBSCRIBE_BASE_URL: optionalString,
      ...schedulerShape,
    },
    env,
  );
  const base: ChannelConsumerConfig = {
    channel: parsed.CHANNEL,
    graphTable: parsed.GRAPH_TABLE,
    cacheTtlMs: parsed.PREFERENCES_CACHE_TTL_MS,
    idempotencyTable: parsed.IDEMPOTENCY_TABLE,
    inboxTable: parsed.INBOX_TABLE,
    deliveryJobSecret: parsed.DELIVERY_JOB_SECRET,
    channelQueueArn: parsed.CHANNEL_QUEUE_ARN,
    rateLimitPerWindow: parsed.CHANNEL_RATE_LIMIT_PER_WINDOW,
    rateLimitWindowMs: parsed.RATE_LIMIT_WINDOW_MS,
    parallelism: parsed.CHANNEL_PARALLELISM,
    sendingTimeoutMs: parsed.CHANNEL_SENDING_TIMEOUT_MS,
    ...(parsed.ALERTS_QUEUE_URL ? { alertsQueueUrl: parsed.ALERTS_QUEUE_URL } : {}),
    ...(parsed.READ_MARKS_TABLE ? { escalation: { inboxTable: parsed.INBOX_TABLE, readMarksTable: parsed.READ_MARKS_TABLE } } : {}),
  };
  if (parsed.CHANNEL === 'push') return { ...base, push: pushProviderOf(parsed), scheduler: schedulerOf(parsed) };
  if (parsed.CHANNEL === 'sms') {
    if (!parsed.SMS_ORIGINATION_IDENTITY) throw new ConfigError('channel consumer (sms): SMS_ORIGINATION_IDENTITY is required');
    return { ...base, sms: smsProviderOf(parsed, parsed.SMS_ORIGINATION_IDENTITY), scheduler: schedulerOf(parsed) };
  }
  if (!parsed.SES_FROM_ADDRESS || !parsed.UNSUBSCRIBE_SECRET || !parsed.UNSUBSCRIBE_BASE_URL) throw new ConfigError('channel consumer (email): SES_FROM_ADDRESS, UNSUBSCRIBE_SECRET and UNSUBSCRIBE_BASE_URL are required');
  return {
    ...base,
    email: {
      fromAddress: parsed.SES_FROM_ADDRESS,
      ...(parsed.SES_IDENTITY_ARN ? { identityArn: parsed.SES_IDENTITY_ARN } : {}),
      ...(parsed.SES_CONFIGURATION_SET ? { configurationSetName: parsed.SES_CONFIGURATION_SET } : {}),
      ...(parsed.SES_ENDPOINT ? { endpoint: parsed.SES_ENDPOINT } : {}),
      unsubscribeSecret: parsed.UNSUBSCRIBE_SECRET,
      unsubscribeBaseUrl: parsed.UNSUBSCRIBE_BASE_URL,
    },
    scheduler: schedulerOf(parsed),
  };
}

export function alertSubscriptions(parts: Parts, graphTable: string): AlertSubscriptionRepository {
  return parts.shared(alertSubscriptions, [graphTable], () => new AlertSubscriptionRepository(documentClient(parts), graphTable));
}

export function channelRepository(parts: Parts, graphTable: string): ChannelRepository {
  return parts.shared(channelRepository, [graphTable], () => new ChannelRepository(documentClient(parts), graphTable));
}

/** A local stand-in endpoint (SNS, SES) checks the same per-DATA_DIR signing credentials as the local SQS endpoint. */
function localEndpointOptions(parts: Parts, endpoint: string | undefined) {
  return endpoint ? { endpoint, ...(parts.aws.sqsCredentials ? { credentials: parts.aws.sqsCredentials } : {}) } : {};
}

export function snsPushProvider(parts: Parts, config: PushProviderConfig): SnsPushProvider {
  return parts.shared(snsPushProvider, [config.platformApplications, config.endpoint], () => new SnsPushProvider(instrumented(parts, new SNSClient({ ...clientOptions(parts), ...localEndpointOptions(parts, config.endpoint) })), config.platformApplications));
}

function sesEmailProvider(parts: Parts, config: EmailProviderConfig): SesEmailProvider {
  return parts.shared(sesEmailProvider, [config.fromAddress, config.identityArn, config.configurationSetName, config.endpoint], () =>
    new SesEmailProvider(instrumented(parts, new SESv2Client({ ...clientOptions(parts), ...localEndpointOptions(parts, config.endpoint) })), {
      fromAddress: config.fromAddress,
      ...(config.identityArn ? { fromArn: config.identityArn } : {}),
      ...(config.configurationSetName ? { configurationSetName: config.configurationSetName } : {}),
    }),
  );
}

/** What the channels read of a catalog type. */
export function channelTypeInfo(type: string): ChannelTypeInfo | undefined {
  const found = findNotificationType(type);
  if (!found) return undefined;
  return {
    digestible: found.digestible,
    ...(found.channels ? { channels: found.channels } : {}),
    ...(found.sensitive !== undefined ? { sensitive: found.sensitive } : {}),
    ...(found.urgentBypassesQuietHours !== undefined ? { urgentBypassesQuietHours: found.urgentBypassesQuietHours } : {}),
    ...(found.escalation ? { escalation: found.escalation } : {}),
    ...(found.deliveryGuarantee ? { deliveryGuarantee: found.deliveryGuarantee } : {}),
    ...(found.followerAlerts ? { followerAlerts: true } : {}),
  };
}

export function channelDelivery(parts: Parts, config: ChannelConsumerConfig, scheduler: Scheduler): ChannelDelivery {
  const ledger = channelSendLedger(parts, config.idempotencyTable);
  return new ChannelDelivery({
    channel: config.channel,
    preferences: preferencesCache(parts, config),
    state: channelRepository(parts, config.graphTable),
    dedup: ledger,
    rate: ledger,
    ...(config.push ? { push: snsPushProvider(parts, config.push) } : {}),
    ...(config.sms ? { sms: smsChannel(parts, config.sms, config.idempotencyTable) } : {}),
    ...(config.email ? { email: Object.assign(sesEmailProvider(parts, config.email), { unsubscribeBaseUrl: config.email.unsubscribeBaseUrl, unsubscribeSecret: config.email.unsubscribeSecret }) } : {}),
    scheduler: referencingScheduler(parts, config.idempotencyTable, scheduler),
    channelQueueArn: config.channelQueueArn,
    signRelease: (release) => signedMessageBody(release, config.deliveryJobSecret),
    items: inboxRepository(parts, config.inboxTable),
    typeInfo: channelTypeInfo,
    clock: parts.clock,
    settings: { rateLimitPerWindow: config.rateLimitPerWindow, rateLimitWindowMs: config.rateLimitWindowMs, parallelism: config.parallelism, ...(config.sendingTimeoutMs !== undefined ? { sendingTimeoutMs: config.sendingTimeoutMs } : {}) },
    onEvent: (level, message, context) => (level === 'warn' ? parts.logger.warn(message, context) : parts.logger.debug(message, context)),
    erased: erasedUsers(parts, config.idempotencyTable),
    trace: observability(parts, { idempotencyTable: config.idempotencyTable, inboxTable: config.inboxTable }).trace,
    ...(config.escalation ? { escalationState: new DynamoEscalationState(documentClient(parts), { inbox: config.escalation.inboxTable, readMarks: config.escalation.readMarksTable }) } : {}),
  });
}

function channelSendLedger(parts: Parts, idempotencyTable: string): ChannelSendLedger {
  return parts.shared(channelSendLedger, [idempotencyTable], () => new ChannelSendLedger(documentClient(parts), idempotencyTable, parts.clock));
}

/** Post alerts on the push consumer: the subscribers (Query) and follow pairs (BatchGetItem) of the Graph table, the next page on the alerts queue. */
function alertPages(parts: Parts, config: ChannelConsumerConfig, queueUrl: string): AlertPages {
  const deps = { subscriptions: alertSubscriptions(parts, config.graphTable), graph: followGraphRepository(parts, config.graphTable), queue: new SqsAlertJobQueue(sqsClient(parts), queueUrl, config.deliveryJobSecret) };
  return { page: (recordId, job) => alertPage(deps, recordId, job), enqueue: (job) => deps.queue.enqueue(job) };
}

export function composeChannelConsumer(parts: Parts, config: ChannelConsumerConfig, scheduler: Scheduler, observabilityConfig: Partial<ObservabilityConfig> = {}) {
  return withAuditBarrier(parts, createChannelHandler({
    delivery: channelDelivery(parts, config, scheduler),
    channel: config.channel,
    deliveryJobSecret: config.deliveryJobSecret,
    logger: parts.logger,
    trace: observability(parts, { idempotencyTable: config.idempotencyTable, inboxTable: config.inboxTable }).trace,
    ...(config.channel === 'push' && config.alertsQueueUrl ? { alerts: alertPages(parts, config, config.alertsQueueUrl) } : {}),
    ...(observabilityConfig.maxReceiveCount !== undefined ? { maxReceiveCount: observabilityConfig.maxReceiveCount } : {}),
  }));
}

export function channelFunction(env: Env) {
  const config = channelConsumerConfigFromEnv(env);
  const parts = createParts({ logger: new Logger({ serviceName: `channel-${config.channel}` }) });
  installAuditTrailFromEnv(parts, env, config.idempotencyTable);
  return composeChannelConsumer(parts, config, eventBridgeScheduler(parts, config.scheduler), observabilityConfigFromEnv(env));
}
