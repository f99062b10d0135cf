/**
 * The typed configs of every function in the local runtime, built from the local settings, the
 * dynalite table names and the URLs of the local stand-ins: the same config types the Lambda
 * functions parse from their environment, without a string round trip.
 */
import { CHANNEL_PARALLELISM_DEFAULT, CHANNEL_RATE_LIMIT_PER_WINDOW_DEFAULT, type ChannelConsumerConfig } from '../app/channels.js';
import { DELIVERY_PARALLELISM_DEFAULT, type DeliveryConfig } from '../app/delivery.js';
import type { FanOutConfig } from '../app/fan-out.js';
import type { InboxWriteConfig } from '../app/inbox-write.js';
import type { PreferencesApiConfig } from '../app/preferences.js';
import type { PrivacyJobConfig } from '../app/privacy-jobs.js';
import { SMS_DAILY_LIMIT_DEFAULT, SMS_DAILY_LIMIT_PER_USER_DEFAULT, SMS_KEYWORD_ANSWERS_DEFAULT } from '../core/channels/sms.js';
import type { SmsInboundConfig, SmsProviderConfig } from '../app/sms.js';
import { LOCAL_SMS_INBOUND_TOPIC_ARN, LOCAL_SMS_OPT_OUT_LIST, LOCAL_SMS_ORIGINATION_IDENTITY } from './sms/sms-voice-v2.js';
import type { PromotionConfig } from '../app/promotion.js';
import { DEFAULT_TOMBSTONE_TTL_DAYS } from '../core/privacy/privacy-jobs.js';
import type { ConnectionsConfig } from '../app/shared-config.js';
import type { WsConnectConfig } from '../app/ws-connect.js';
import type { WsDefaultConfig } from '../app/ws-default.js';
import type { Channel } from '../contract/channels.js';
import { DEFAULT_TENANT_CLAIM } from '../adapters/jwt-verifier.js';
import type { Priority } from '../core/jobs/delivery-job.js';
import { RATE_LIMIT_PER_MINUTE_DEFAULT, RATE_LIMIT_WINDOW_MS } from '../core/preferences/delivery-policy.js';
import { INBOX_TTL_DAYS_DEFAULT } from '../core/model/notification.js';
import { PREFERENCES_CACHE_TTL_MS_DEFAULT } from '../core/preferences/preferences-cache.js';
import { SEND_AT_MIN_DELAY_MS_DEFAULT } from '../core/fanout/send-at.js';
import type { TableName } from '../table-specs.js';
import { CONNECTIONS_PER_JOB } from '../core/jobs/delivery-job.js';
import { LOCAL_FUNCTION_TIMEOUT_MS_DEFAULT, type LocalSettings } from './settings.js';

export interface LocalFunctionInputs {
  settings: LocalSettings;
  tables: Record<TableName, string>;
  cursorSecret: string;
  /** HMAC key of delivery jobs, shared by the local fan-out, channel and delivery functions only. */
  deliveryJobSecret: string;
  /** HMAC key of snooze comebacks: REST write signs, urgent delivery verifies. */
  snoozeJobSecret: string;
  /** The local gateway's `@connections` endpoint. */
  managementEndpoint: string;
  queues: { urgentUrl: string; urgentArn: string; infoUrl: string; promotionUrl: string; privacyUrl: string; intakeArnOf(detailType: string): string; channels?: Record<Channel, { url: string; arn: string }>; alertsUrl?: string };
  /** The local SNS / SES stand-ins and the base URL of unsubscribe links; without them the channels are off. */
  channels?: { snsEndpoint: string; sesEndpoint: string; smsEndpoint: string; unsubscribeSecret: string; unsubscribeBaseUrl: string };
}

/** The local runtime's SNS platform applications (the stand-in accepts any ARN of this shape). */
export const LOCAL_PLATFORM_APPLICATIONS = {
  apns: 'arn:aws:sns:us-east-1:000000000000:app/APNS/local-apns',
  apns_sandbox: 'arn:aws:sns:us-east-1:000000000000:app/APNS_SANDBOX/local-apns-sandbox',
  fcm: 'arn:aws:sns:us-east-1:000000000000:app/GCM/local-fcm',
} as const;

export const LOCAL_EMAIL_FROM = 'Notifications <notifications@example.test>';

export interface LocalFunctionConfigs {
  inbox: InboxWriteConfig;
  preferences: PreferencesApiConfig;
  fanOut(detailType: string): FanOutConfig;
  promotion: PromotionConfig;
  privacyJob: PrivacyJobConfig;
  /** The inbound topic's subscriber (two-way SMS of the stand-in's number). */
  smsInbound: SmsInboundConfig;
  delivery(mode: Priority): DeliveryConfig;
  /** Undefined when the channels are off (no stand-ins given). */
  channel?(channel: Channel): ChannelConsumerConfig;
  wsConnect: WsConnectConfig;
  wsDisconnect: ConnectionsConfig;
  wsDefault: WsDefaultConfig;
}

export function localFunctionConfigs(inputs: LocalFunctionInputs): LocalFunctionConfigs {
  const { settings, tables, queues, managementEndpoint } = inputs;
  const cacheTtlMs = settings.preferencesCacheTtlMs ?? PREFERENCES_CACHE_TTL_MS_DEFAULT;
  // The local gateway holds posts until $connect has finished, so no post races the handshake.
  const connections: ConnectionsConfig = { connectionsTable: tables.connections, handshakeGraceSeconds: 0 };
  const rest = { tenantClaim: DEFAULT_TENANT_CLAIM, corsAllowOrigins: settings.corsAllowOrigins ?? ['*'] };
  const channels = inputs.channels && queues.channels ? { ...inputs.channels, queues: queues.channels } : undefined;
  const push = channels ? { platformApplications: { ...LOCAL_PLATFORM_APPLICATIONS }, endpoint: channels.snsEndpoint } : undefined;
  const sms: SmsProviderConfig = {
    originationIdentity: LOCAL_SMS_ORIGINATION_IDENTITY,
    configurationSetName: 'local',
    limits: { perUserPerDay: settings.smsDailyLimitPerUser ?? SMS_DAILY_LIMIT_PER_USER_DEFAULT, perDay: settings.smsDailyLimit ?? SMS_DAILY_LIMIT_DEFAULT },
    ...(channels ? { endpoint: channels.smsEndpoint } : {}),
  };
  return {
    inbox: {
      inboxTable: tables.inbox,
      readMarksTable: tables.readMarks,
      graphTable: tables.graph,
      cursorSecret: inputs.cursorSecret,
      feedShards: settings.feedShards,
      inboxTtlDays: INBOX_TTL_DAYS_DEFAULT,
      cacheTtlMs,
      ...rest,
      readStateSync: { ...connections, managementEndpoint },
      // One process, no fleet of warm containers: read retractions on every request so one shows at once.
      retractionsCacheTtlMs: 0,
      snooze: { urgentQueueArn: queues.urgentArn, snoozeJobSecret: inputs.snoozeJobSecret, idempotencyTable: tables.idempotency },
    },
    preferences: { graphTable: tables.graph, ...rest, ...(channels && push ? { channels: { push, unsubscribeSecret: channels.unsubscribeSecret } } : {}) },
    fanOut: (detailType) => ({
      notificationType: detailType,
      inboxTable: tables.inbox,
      readMarksTable: tables.readMarks,
      graphTable: tables.graph,
      idempotencyTable: tables.idempotency,
      deliveryJobSecret: inputs.deliveryJobSecret,
      cacheTtlMs,
      settings: { celebrityThreshold: settings.celebrityThreshold, feedShards: settings.feedShards, inboxTtlDays: INBOX_TTL_DAYS_DEFAULT },
      queueUrls: { urgent: queues.urgentUrl, info: queues.infoUrl, promotion: queues.promotionUrl },
      ...(channels ? { channelQueueUrls: { push: channels.queues.push.url, email: channels.queues.email.url, sms: channels.queues.sms.url } } : {}),
      ...(settings.escalationDelaySeconds ? { escalationDelaySeconds: settings.escalationDelaySeconds } : {}),
      ...(channels && queues.alertsUrl ? { alertsQueueUrl: queues.alertsUrl } : {}),
      sendAt: { intakeQueueArn: queues.intakeArnOf(detailType), minDelayMs: settings.sendAtMinDelayMs ?? SEND_AT_MIN_DELAY_MS_DEFAULT },
    }),
    promotion: { graphTable: tables.graph, promotionQueueUrl: queues.promotionUrl, celebrityThreshold: settings.celebrityThreshold },
    // Grace: the local function timeout (what a fan-out can take here), as the CLI's direct mode uses.
    privacyJob: { tables, feedShards: settings.feedShards, queueUrl: queues.privacyUrl, graceMs: settings.functionTimeoutMs ?? LOCAL_FUNCTION_TIMEOUT_MS_DEFAULT, tombstoneTtlDays: DEFAULT_TOMBSTONE_TTL_DAYS, managementEndpoint },
    smsInbound: {
      idempotencyTable: tables.idempotency,
      inboundTopicArn: LOCAL_SMS_INBOUND_TOPIC_ARN,
      optOutListName: LOCAL_SMS_OPT_OUT_LIST,
      ...(channels ? { endpoint: channels.smsEndpoint } : {}),
      // Self-managed opt-outs (SMS_SELF_MANAGED_OPT_OUTS): the function answers the keywords; otherwise the stand-in does, as the service would.
      ...(settings.smsSelfManagedOptOuts ? { answers: { provider: sms, texts: SMS_KEYWORD_ANSWERS_DEFAULT } } : {}),
    },
    delivery: (mode) => ({
      mode,
      inboxTable: tables.inbox,
      deliveryJobSecret: inputs.deliveryJobSecret,
      // Comebacks go to the urgent queue only, so only its consumer holds their key (as on AWS).
      ...(mode === 'urgent' ? { snoozeJobSecret: inputs.snoozeJobSecret } : {}),
      managementEndpoint,
      delivery: {
        ...connections,
        idempotencyTable: tables.idempotency,
        inboxTable: tables.inbox,
        parallelism: DELIVERY_PARALLELISM_DEFAULT,
        celebrityJobs: { queueUrl: mode === 'urgent' ? queues.urgentUrl : queues.infoUrl, connectionsPerJob: CONNECTIONS_PER_JOB },
      },
      gate: {
        graphTable: tables.graph,
        cacheTtlMs,
        idempotencyTable: tables.idempotency,
        // Release schedules deliver to the urgent queue (no batching window).
        releaseQueueArn: queues.urgentArn,
        rateLimitPerWindow: settings.rateLimitPerMinute ?? RATE_LIMIT_PER_MINUTE_DEFAULT,
        rateLimitWindowMs: settings.rateLimitWindowMs ?? RATE_LIMIT_WINDOW_MS,
      },
    }),
    ...(channels && push
      ? {
          channel: (channel: Channel): ChannelConsumerConfig => ({
            channel,
            graphTable: tables.graph,
            cacheTtlMs,
            idempotencyTable: tables.idempotency,
            inboxTable: tables.inbox,
            deliveryJobSecret: inputs.deliveryJobSecret,
            channelQueueArn: channels.queues[channel].arn,
            rateLimitPerWindow: settings.channelRateLimitPerWindow ?? CHANNEL_RATE_LIMIT_PER_WINDOW_DEFAULT,
            rateLimitWindowMs: settings.rateLimitWindowMs ?? RATE_LIMIT_WINDOW_MS,
            parallelism: CHANNEL_PARALLELISM_DEFAULT,
            // As on AWS: longer than a consumer run (the function timeout), shorter than the visibility timeout (6x it), so the retry of a killed run takes the claim over.
            sendingTimeoutMs: 2 * (settings.functionTimeoutMs ?? LOCAL_FUNCTION_TIMEOUT_MS_DEFAULT),
            escalation: { inboxTable: tables.inbox, readMarksTable: tables.readMarks },
            ...(channel === 'push' && queues.alertsUrl ? { alertsQueueUrl: queues.alertsUrl } : {}),
            ...(channel === 'push'
              ? { push }
              : channel === 'sms'
                ? { sms }
                : { email: { fromAddress: LOCAL_EMAIL_FROM, configurationSetName: 'local', endpoint: channels.sesEndpoint, unsubscribeSecret: channels.unsubscribeSecret, unsubscribeBaseUrl: channels.unsubscribeBaseUrl } }),
          }),
        }
      : {}),
    wsConnect: { ...connections, graphTable: tables.graph },
    wsDisconnect: connections,
    wsDefault: { managementEndpoint },
  };
}
