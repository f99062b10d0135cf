/**
 * Every environment variable the functions and the local runtime read, declared once (`ENV`), and
 * one zod schema per deployed function. A function parses its whole environment at cold start and
 * reports every missing or bad variable in one ConfigError. `lib/` imports the names from here, so
 * this module imports only zod and the core (no AWS SDK).
 */
import * as z from 'zod';
import { CONNECTIONS_PER_JOB, prioritySchema } from '../core/delivery-job.js';
import { DEFAULT_FEED_SHARDS } from '../core/feed-shards.js';
import { RATE_LIMIT_PER_MINUTE_DEFAULT, RATE_LIMIT_WINDOW_MS } from '../core/live-delivery-policy.js';
import { INBOX_TTL_DAYS_DEFAULT } from '../core/notification.js';
import { PREFERENCES_CACHE_TTL_MS_DEFAULT } from '../core/preferences-cache.js';
import { SEND_AT_MIN_DELAY_MS_DEFAULT } from '../core/send-at.js';
import { DEFAULT_CELEBRITY_THRESHOLD } from '../core/tier.js';

const ENV_NAMES = [
  // Tables (src/table-specs.ts binds each table to its variable).
  'INBOX_TABLE',
  'READ_MARKS_TABLE',
  'CONNECTIONS_TABLE',
  'GRAPH_TABLE',
  'IDEMPOTENCY_TABLE',
  // Queues.
  'URGENT_QUEUE_URL',
  'INFO_QUEUE_URL',
  'PROMOTION_QUEUE_URL',
  'INTAKE_QUEUE_ARN',
  'RELEASE_QUEUE_ARN',
  'PUSH_QUEUE_URL',
  'EMAIL_QUEUE_URL',
  'CHANNEL_QUEUE_ARN',
  // Channels (push: SNS mobile push; email: SES v2).
  'CHANNEL',
  'SNS_PLATFORM_APPLICATION_APNS',
  'SNS_PLATFORM_APPLICATION_APNS_SANDBOX',
  'SNS_PLATFORM_APPLICATION_FCM',
  'SES_FROM_ADDRESS',
  'SES_IDENTITY_ARN',
  'SES_CONFIGURATION_SET',
  'UNSUBSCRIBE_SECRET',
  'UNSUBSCRIBE_BASE_URL',
  'CHANNEL_RATE_LIMIT_PER_WINDOW',
  'CHANNEL_PARALLELISM',
  'SNOOZE_QUEUE_ARN',
  // Scheduler.
  'SCHEDULE_GROUP_NAME',
  'SCHEDULER_ROLE_ARN',
  'SCHEDULER_DLQ_ARN',
  // WebSocket management API.
  'WS_MANAGEMENT_ENDPOINT',
  // Auth and REST.
  'CURSOR_SECRET',
  'DELIVERY_JOB_SECRET',
  'TENANT_CLAIM',
  'FIXED_TENANT',
  'CORS_ALLOW_ORIGINS',
  'JWT_ISSUER',
  'JWT_AUDIENCE',
  'JWKS_URL',
  // Settings.
  'NOTIFICATION_TYPE',
  'DELIVERY_MODE',
  'FEED_SHARDS',
  'INBOX_TTL_DAYS',
  'CELEBRITY_THRESHOLD',
  'PREFERENCES_CACHE_TTL_MS',
  'SEND_AT_MIN_DELAY_MS',
  'RATE_LIMIT_PER_MINUTE',
  'RATE_LIMIT_WINDOW_MS',
  'HANDSHAKE_GRACE_SECONDS',
  'DELIVERY_RECORD_TTL_SECONDS',
  'DELIVERY_PARALLELISM',
  'CONNECTIONS_PER_JOB',
  'TRACE_TTL_DAYS',
  // Audit trail (src/app/audit/aws.ts): Firehose stream, KMS HMAC key of the pseudonyms, backlog queue.
  'AUDIT_STREAM_NAME',
  'AUDIT_KEY_ARN',
  'AUDIT_BACKLOG_QUEUE_URL',
  'RETRACTIONS_CACHE_TTL_MS',
  // Local runtime only (npm start).
  'HOST',
  'PORT',
  'WS_PORT',
  'DATA_DIR',
  'INFO_BATCH_WINDOW_MS',
  'FUNCTION_TIMEOUT_MS',
  'QUEUE_VISIBILITY_TIMEOUT_MS',
  'MAX_RECEIVE_COUNT',
  'INTAKE_BACKLOG_LIMIT',
  'LOG_LEVEL',
  'CHANNEL_BATCH_WINDOW_MS',
  'SNS_ENDPOINT',
  'SES_ENDPOINT',
] as const;

export type EnvName = (typeof ENV_NAMES)[number];

/** `ENV.GRAPH_TABLE === 'GRAPH_TABLE'`: names to type-check, never to retype. */
export const ENV = Object.fromEntries(ENV_NAMES.map((name) => [name, name])) as { readonly [Name in EnvName]: Name };

export type Env = Readonly<Partial<Record<string, string | undefined>>>;

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

// --- Variable schemas -------------------------------------------------------------------------

/** Unset and empty are the same (CloudFormation cannot unset a variable, only empty it). */
const unsetIfEmpty = (value: unknown) => (value === '' ? undefined : value);
const required = z.preprocess(unsetIfEmpty, z.string({ error: 'is required' }));
const optionalString = z.preprocess(unsetIfEmpty, z.string().optional());
const integer = (fallback: number, min: number) =>
  z.preprocess(
    unsetIfEmpty,
    z
      .string()
      .optional()
      .transform((raw, context) => {
        if (raw === undefined) return fallback;
        const value = Number(raw);
        if (!Number.isInteger(value) || value < min) {
          context.addIssue({ code: 'custom', message: `must be an integer >= ${min}, got ${raw}` });
          return z.NEVER;
        }
        return value;
      }),
  );
const optionalInteger = (min: number) =>
  z.preprocess(
    unsetIfEmpty,
    z
      .string()
      .optional()
      .transform((raw, context) => {
        if (raw === undefined) return undefined;
        const value = Number(raw);
        if (!Number.isInteger(value) || value < min) {
          context.addIssue({ code: 'custom', message: `must be an integer >= ${min}, got ${raw}` });
          return z.NEVER;
        }
        return value;
      }),
  );
const url = z.preprocess(unsetIfEmpty, z.url({ error: 'must be a URL' }));

/**
 * `*` (the default: tokens travel in a header, not cookies, so any origin may call) or a
 * comma-separated list of exact origins such as `https://app.example.com`.
 */
const corsOrigins = z.preprocess(
  (value) => (typeof value === 'string' ? value.trim() : value) || undefined,
  z
    .string()
    .optional()
    .transform((raw, context) => {
      const origins = (raw ?? '*').split(',').map((origin) => origin.trim()).filter(Boolean);
      for (const origin of origins) {
        if (origin !== '*' && !/^https?:\/\/[^/\s]+$/.test(origin)) context.addIssue({ code: 'custom', message: `${origin} is not an origin (scheme://host[:port])` });
      }
      return origins;
    }),
);

/** Parses `env` against a schema keyed by variable names; every problem in one ConfigError. */
function parseEnv<Shape extends Partial<Record<EnvName, z.ZodType>>>(what: string, shape: Shape, env: Env): z.output<z.ZodObject<Shape>> {
  const parsed = z.object(shape).safeParse(env);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`);
  throw new ConfigError(`${what}: ${problems.join('; ')}`);
}

// --- Shared pieces ----------------------------------------------------------------------------

export interface SchedulerConfig {
  groupName: string;
  roleArn: string;
  deadLetterArn?: string;
}

export interface PreferencesCacheConfig {
  graphTable: string;
  cacheTtlMs: number;
}

export interface InboxConfig extends PreferencesCacheConfig {
  inboxTable: string;
  readMarksTable: string;
  cursorSecret: string;
  feedShards: number;
  inboxTtlDays: number;
  /** How long a container reuses a tenant's retraction list (undefined: the default). */
  retractionsCacheTtlMs?: number;
}

export interface RestConfig {
  /** Undefined: the default claim of the token verifier. */
  tenantClaim?: string;
  corsAllowOrigins: string[];
}

export interface ConnectionsConfig {
  connectionsTable: string;
  /** Undefined: the repository's default grace. */
  handshakeGraceSeconds?: number;
}

const schedulerShape = { SCHEDULE_GROUP_NAME: required, SCHEDULER_ROLE_ARN: required, SCHEDULER_DLQ_ARN: optionalString };
const schedulerOf = (env: z.output<z.ZodObject<typeof schedulerShape>>): SchedulerConfig => ({
  groupName: env.SCHEDULE_GROUP_NAME,
  roleArn: env.SCHEDULER_ROLE_ARN,
  ...(env.SCHEDULER_DLQ_ARN ? { deadLetterArn: env.SCHEDULER_DLQ_ARN } : {}),
});
const inboxShape = {
  INBOX_TABLE: required,
  READ_MARKS_TABLE: required,
  GRAPH_TABLE: required,
  CURSOR_SECRET: required,
  FEED_SHARDS: integer(DEFAULT_FEED_SHARDS, 1),
  INBOX_TTL_DAYS: integer(INBOX_TTL_DAYS_DEFAULT, 1),
  PREFERENCES_CACHE_TTL_MS: integer(PREFERENCES_CACHE_TTL_MS_DEFAULT, 0),
  RETRACTIONS_CACHE_TTL_MS: optionalInteger(0),
};
const inboxOf = (env: z.output<z.ZodObject<typeof inboxShape>>): InboxConfig => ({
  inboxTable: env.INBOX_TABLE,
  readMarksTable: env.READ_MARKS_TABLE,
  graphTable: env.GRAPH_TABLE,
  cursorSecret: env.CURSOR_SECRET,
  feedShards: env.FEED_SHARDS,
  inboxTtlDays: env.INBOX_TTL_DAYS,
  cacheTtlMs: env.PREFERENCES_CACHE_TTL_MS,
  ...(env.RETRACTIONS_CACHE_TTL_MS !== undefined ? { retractionsCacheTtlMs: env.RETRACTIONS_CACHE_TTL_MS } : {}),
});
const restShape = { TENANT_CLAIM: optionalString, CORS_ALLOW_ORIGINS: corsOrigins };
const restOf = (env: z.output<z.ZodObject<typeof restShape>>): RestConfig => ({
  ...(env.TENANT_CLAIM ? { tenantClaim: env.TENANT_CLAIM } : {}),
  corsAllowOrigins: env.CORS_ALLOW_ORIGINS,
});
const connectionsShape = { CONNECTIONS_TABLE: required, HANDSHAKE_GRACE_SECONDS: optionalInteger(0) };
const connectionsOf = (env: z.output<z.ZodObject<typeof connectionsShape>>): ConnectionsConfig => ({
  connectionsTable: env.CONNECTIONS_TABLE,
  ...(env.HANDSHAKE_GRACE_SECONDS !== undefined ? { handshakeGraceSeconds: env.HANDSHAKE_GRACE_SECONDS } : {}),
});

/** `CORS_ALLOW_ORIGINS` alone (REST functions read it with the rest of their config). */
export function corsAllowOriginsFromEnv(env: Env): string[] {
  return parseEnv('CORS', { CORS_ALLOW_ORIGINS: corsOrigins }, env).CORS_ALLOW_ORIGINS;
}

// --- One config per deployed function ---------------------------------------------------------

export interface InboxReadConfig extends InboxConfig, RestConfig {}

export function inboxReadConfigFromEnv(env: Env): InboxReadConfig {
  const parsed = parseEnv('inbox-read', { ...inboxShape, ...restShape }, env);
  return { ...inboxOf(parsed), ...restOf(parsed) };
}

export interface InboxWriteConfig extends InboxReadConfig {
  /** Read-state sync to connected devices; without it the REST API still works. */
  readStateSync?: ConnectionsConfig & { managementEndpoint: string };
  /** Snooze: the comeback's push is a signed delivery job scheduled onto the urgent queue; without it snooze answers 400. */
  snooze?: { urgentQueueArn: string; deliveryJobSecret: string; scheduler?: SchedulerConfig };
}

export function inboxWriteConfigFromEnv(env: Env): InboxWriteConfig {
  const syncShape = { ...connectionsShape, WS_MANAGEMENT_ENDPOINT: url };
  const withSync = Boolean(env[ENV.WS_MANAGEMENT_ENDPOINT]);
  // One parse, so a cold start reports the sync's missing variables with the others.
  const parsed = parseEnv('inbox-write', { ...inboxShape, ...restShape, ...(withSync ? syncShape : {}) }, env);
  const base = { ...inboxOf(parsed), ...restOf(parsed) };
  if (!withSync) return { ...base, ...snoozeOf(env) };
  const live = parseEnv('inbox-write', syncShape, env);
  return { ...base, readStateSync: { ...connectionsOf(live), managementEndpoint: live.WS_MANAGEMENT_ENDPOINT }, ...snoozeOf(env) };
}

/** Snooze needs its queue, the job secret and (on AWS) the scheduler; all or nothing. */
function snoozeOf(env: Env): Pick<InboxWriteConfig, 'snooze'> {
  if (!env[ENV.SNOOZE_QUEUE_ARN]) return {};
  const parsed = parseEnv('inbox-write (snooze)', { SNOOZE_QUEUE_ARN: required, DELIVERY_JOB_SECRET: required, ...schedulerShape }, env);
  return { snooze: { urgentQueueArn: parsed.SNOOZE_QUEUE_ARN, deliveryJobSecret: parsed.DELIVERY_JOB_SECRET, scheduler: schedulerOf(parsed) } };
}

export interface PreferencesApiConfig extends RestConfig {
  graphTable: string;
  /** Devices, consent, email address and unsubscribe routes (served by the same function): push needs platform apps, unsubscribe its key. */
  channels?: { push: PushProviderConfig; unsubscribeSecret?: string };
}

export function preferencesApiConfigFromEnv(env: Env): PreferencesApiConfig {
  const parsed = parseEnv('preferences', { GRAPH_TABLE: required, ...restShape, ...pushProviderShape, UNSUBSCRIBE_SECRET: optionalString }, env);
  return {
    graphTable: parsed.GRAPH_TABLE,
    ...restOf(parsed),
    channels: { push: pushProviderOf(parsed), ...(parsed.UNSUBSCRIBE_SECRET ? { unsubscribeSecret: parsed.UNSUBSCRIBE_SECRET } : {}) },
  };
}

export interface FanOutSettingsConfig {
  celebrityThreshold: number;
  feedShards: number;
  inboxTtlDays: number;
}

export interface FanOutConfig extends PreferencesCacheConfig {
  /** The catalog type this function serves (`NOTIFICATION_TYPE`). */
  notificationType: string;
  inboxTable: string;
  idempotencyTable: string;
  settings: FanOutSettingsConfig;
  /** HMAC key of the delivery jobs this function sends (delivery drops jobs without a valid signature). */
  deliveryJobSecret: string;
  /** The URLs of the queues the type sends to (`fanOutQueueNeeds`); a missing one fails at composition. */
  queueUrls: { urgent?: string; info?: string; promotion?: string };
  /** Channel queues (`PUSH_QUEUE_URL`, `EMAIL_QUEUE_URL`): a channel without one is off. */
  channelQueueUrls?: { push?: string; email?: string };
  /** `sendAt`: the schedule target (this function's intake queue); `scheduler`: EventBridge Scheduler on AWS. */
  sendAt?: { intakeQueueArn: string; minDelayMs: number };
  scheduler?: SchedulerConfig;
}

const fanOutShape = {
  NOTIFICATION_TYPE: required,
  INBOX_TABLE: required,
  GRAPH_TABLE: required,
  IDEMPOTENCY_TABLE: required,
  DELIVERY_JOB_SECRET: required,
  CELEBRITY_THRESHOLD: integer(DEFAULT_CELEBRITY_THRESHOLD, 1),
  FEED_SHARDS: integer(DEFAULT_FEED_SHARDS, 1),
  INBOX_TTL_DAYS: integer(INBOX_TTL_DAYS_DEFAULT, 1),
  PREFERENCES_CACHE_TTL_MS: integer(PREFERENCES_CACHE_TTL_MS_DEFAULT, 0),
  URGENT_QUEUE_URL: optionalString,
  INFO_QUEUE_URL: optionalString,
  PROMOTION_QUEUE_URL: optionalString,
  PUSH_QUEUE_URL: optionalString,
  EMAIL_QUEUE_URL: optionalString,
};

/** The fan-out function: with `sendAt` deferral (the deployed function) or without (a test of the service). */
export function fanOutConfigFromEnv(env: Env, options: { sendAt: boolean } = { sendAt: true }): FanOutConfig {
  const sendAtShape = { INTAKE_QUEUE_ARN: required, SEND_AT_MIN_DELAY_MS: integer(SEND_AT_MIN_DELAY_MS_DEFAULT, 0), ...schedulerShape };
  const parsed = parseEnv('fan-out', { ...fanOutShape, ...(options.sendAt ? sendAtShape : {}) }, env);
  const config: FanOutConfig = {
    notificationType: parsed.NOTIFICATION_TYPE,
    inboxTable: parsed.INBOX_TABLE,
    graphTable: parsed.GRAPH_TABLE,
    idempotencyTable: parsed.IDEMPOTENCY_TABLE,
    deliveryJobSecret: parsed.DELIVERY_JOB_SECRET,
    cacheTtlMs: parsed.PREFERENCES_CACHE_TTL_MS,
    settings: { celebrityThreshold: parsed.CELEBRITY_THRESHOLD, feedShards: parsed.FEED_SHARDS, inboxTtlDays: parsed.INBOX_TTL_DAYS },
    queueUrls: {
      ...(parsed.URGENT_QUEUE_URL ? { urgent: parsed.URGENT_QUEUE_URL } : {}),
      ...(parsed.INFO_QUEUE_URL ? { info: parsed.INFO_QUEUE_URL } : {}),
      ...(parsed.PROMOTION_QUEUE_URL ? { promotion: parsed.PROMOTION_QUEUE_URL } : {}),
    },
    ...(parsed.PUSH_QUEUE_URL || parsed.EMAIL_QUEUE_URL
      ? { channelQueueUrls: { ...(parsed.PUSH_QUEUE_URL ? { push: parsed.PUSH_QUEUE_URL } : {}), ...(parsed.EMAIL_QUEUE_URL ? { email: parsed.EMAIL_QUEUE_URL } : {}) } }
      : {}),
  };
  if (!options.sendAt) return config;
  const sendAt = parseEnv('fan-out (sendAt)', sendAtShape, env);
  return { ...config, sendAt: { intakeQueueArn: sendAt.INTAKE_QUEUE_ARN, minDelayMs: sendAt.SEND_AT_MIN_DELAY_MS }, scheduler: schedulerOf(sendAt) };
}

/** The env var of each fan-out queue URL (the CDK app binds exactly the ones `fanOutQueueNeeds` names). */
export const FAN_OUT_QUEUE_URL_ENV = { urgent: ENV.URGENT_QUEUE_URL, info: ENV.INFO_QUEUE_URL, promotion: ENV.PROMOTION_QUEUE_URL } as const;

export interface PromotionConfig {
  graphTable: string;
  promotionQueueUrl: string;
  /** The pass makes a pending flip itself when the count calls for it (the same rule as fan-out). */
  celebrityThreshold: number;
}

export function promotionConfigFromEnv(env: Env): PromotionConfig {
  const parsed = parseEnv('celebrity-promotion', { GRAPH_TABLE: required, PROMOTION_QUEUE_URL: required, CELEBRITY_THRESHOLD: integer(DEFAULT_CELEBRITY_THRESHOLD, 1) }, env);
  return { graphTable: parsed.GRAPH_TABLE, promotionQueueUrl: parsed.PROMOTION_QUEUE_URL, celebrityThreshold: parsed.CELEBRITY_THRESHOLD };
}

export interface LiveGateConfig extends PreferencesCacheConfig {
  idempotencyTable: string;
  /** Where release schedules deliver held pushes: the urgent delivery queue (no batching window). */
  releaseQueueArn: string;
  /** Live pushes per user per window (0 = off) and the window (a minute unless a test shortens it). */
  rateLimitPerWindow: number;
  rateLimitWindowMs: number;
}

export interface LiveDeliveryConfig extends ConnectionsConfig {
  idempotencyTable: string;
  deliveryRecordTtlSeconds?: number;
  parallelism: number;
  /** Celebrity posts in bounded shard/page jobs put back on the delivery queues; without it one job pages every online subscriber. */
  celebrityJobs?: { urgentQueueUrl: string; infoQueueUrl: string; connectionsPerJob: number };
}

export interface DeliveryConfig {
  mode: z.infer<typeof prioritySchema>;
  /** HMAC key the fan-out signs delivery jobs with: a job without a valid signature is dropped, never pushed. */
  deliveryJobSecret: string;
  managementEndpoint: string;
  delivery: LiveDeliveryConfig;
  gate: LiveGateConfig;
}

export const DELIVERY_PARALLELISM_DEFAULT = 16;

/** With the EventBridge Scheduler of held pushes (the local runtime passes its own scheduler). */
export function deliveryConfigFromEnv(env: Env): DeliveryConfig & { scheduler: SchedulerConfig } {
  const parsed = parseEnv(
    'delivery',
    {
      DELIVERY_MODE: z.preprocess(unsetIfEmpty, prioritySchema),
      DELIVERY_JOB_SECRET: required,
      WS_MANAGEMENT_ENDPOINT: url,
      ...connectionsShape,
      IDEMPOTENCY_TABLE: required,
      GRAPH_TABLE: required,
      RELEASE_QUEUE_ARN: required,
      PREFERENCES_CACHE_TTL_MS: integer(PREFERENCES_CACHE_TTL_MS_DEFAULT, 0),
      RATE_LIMIT_PER_MINUTE: integer(RATE_LIMIT_PER_MINUTE_DEFAULT, 0),
      RATE_LIMIT_WINDOW_MS: integer(RATE_LIMIT_WINDOW_MS, 1),
      DELIVERY_RECORD_TTL_SECONDS: optionalInteger(1),
      DELIVERY_PARALLELISM: integer(DELIVERY_PARALLELISM_DEFAULT, 1),
      URGENT_QUEUE_URL: required,
      INFO_QUEUE_URL: required,
      CONNECTIONS_PER_JOB: integer(CONNECTIONS_PER_JOB, 1),
      ...schedulerShape,
    },
    env,
  );
  return {
    mode: parsed.DELIVERY_MODE,
    deliveryJobSecret: parsed.DELIVERY_JOB_SECRET,
    managementEndpoint: parsed.WS_MANAGEMENT_ENDPOINT,
    delivery: {
      ...connectionsOf(parsed),
      idempotencyTable: parsed.IDEMPOTENCY_TABLE,
      ...(parsed.DELIVERY_RECORD_TTL_SECONDS !== undefined ? { deliveryRecordTtlSeconds: parsed.DELIVERY_RECORD_TTL_SECONDS } : {}),
      parallelism: parsed.DELIVERY_PARALLELISM,
      celebrityJobs: { urgentQueueUrl: parsed.URGENT_QUEUE_URL, infoQueueUrl: parsed.INFO_QUEUE_URL, connectionsPerJob: parsed.CONNECTIONS_PER_JOB },
    },
    gate: {
      graphTable: parsed.GRAPH_TABLE,
      cacheTtlMs: parsed.PREFERENCES_CACHE_TTL_MS,
      idempotencyTable: parsed.IDEMPOTENCY_TABLE,
      releaseQueueArn: parsed.RELEASE_QUEUE_ARN,
      rateLimitPerWindow: parsed.RATE_LIMIT_PER_MINUTE,
      rateLimitWindowMs: parsed.RATE_LIMIT_WINDOW_MS,
    },
    scheduler: schedulerOf(parsed),
  };
}

/** SNS platform application ARNs per platform; a platform without one cannot register devices. */
export interface PushProviderConfig {
  platformApplications: { apns?: string; apns_sandbox?: string; fcm?: string };
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

/** The consumer of one channel queue (`CHANNEL` = push | email). */
export interface ChannelConsumerConfig extends PreferencesCacheConfig {
  channel: 'push' | 'email';
  idempotencyTable: string;
  deliveryJobSecret: string;
  /** This channel's queue: held jobs re-enter it by a one-time schedule. */
  channelQueueArn: string;
  rateLimitPerWindow: number;
  rateLimitWindowMs: number;
  parallelism: number;
  push?: PushProviderConfig;
  email?: EmailProviderConfig & { unsubscribeSecret: string; unsubscribeBaseUrl: string };
}

export const CHANNEL_RATE_LIMIT_PER_WINDOW_DEFAULT = 5;
export const CHANNEL_PARALLELISM_DEFAULT = 8;

const pushProviderShape = {
  SNS_PLATFORM_APPLICATION_APNS: optionalString,
  SNS_PLATFORM_APPLICATION_APNS_SANDBOX: optionalString,
  SNS_PLATFORM_APPLICATION_FCM: optionalString,
  SNS_ENDPOINT: optionalString,
};
const pushProviderOf = (env: z.output<z.ZodObject<typeof pushProviderShape>>): PushProviderConfig => ({
  platformApplications: {
    ...(env.SNS_PLATFORM_APPLICATION_APNS ? { apns: env.SNS_PLATFORM_APPLICATION_APNS } : {}),
    ...(env.SNS_PLATFORM_APPLICATION_APNS_SANDBOX ? { apns_sandbox: env.SNS_PLATFORM_APPLICATION_APNS_SANDBOX } : {}),
    ...(env.SNS_PLATFORM_APPLICATION_FCM ? { fcm: env.SNS_PLATFORM_APPLICATION_FCM } : {}),
  },
  ...(env.SNS_ENDPOINT ? { endpoint: env.SNS_ENDPOINT } : {}),
});

export function channelConsumerConfigFromEnv(env: Env): ChannelConsumerConfig & { scheduler: SchedulerConfig } {
  const parsed = parseEnv(
    'channel consumer',
    {
      CHANNEL: z.preprocess(unsetIfEmpty, z.enum(['push', 'email'])),
      GRAPH_TABLE: required,
      IDEMPOTENCY_TABLE: required,
      DELIVERY_JOB_SECRET: required,
      CHANNEL_QUEUE_ARN: required,
      PREFERENCES_CACHE_TTL_MS: integer(PREFERENCES_CACHE_TTL_MS_DEFAULT, 0),
      CHANNEL_RATE_LIMIT_PER_WINDOW: integer(CHANNEL_RATE_LIMIT_PER_WINDOW_DEFAULT, 0),
      RATE_LIMIT_WINDOW_MS: integer(RATE_LIMIT_WINDOW_MS, 1),
      CHANNEL_PARALLELISM: integer(CHANNEL_PARALLELISM_DEFAULT, 1),
      ...pushProviderShape,
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
    deliveryJobSecret: parsed.DELIVERY_JOB_SECRET,
    channelQueueArn: parsed.CHANNEL_QUEUE_ARN,
    rateLimitPerWindow: parsed.CHANNEL_RATE_LIMIT_PER_WINDOW,
    rateLimitWindowMs: parsed.RATE_LIMIT_WINDOW_MS,
    parallelism: parsed.CHANNEL_PARALLELISM,
  };
  if (parsed.CHANNEL === 'push') return { ...base, push: pushProviderOf(parsed), scheduler: schedulerOf(parsed) };
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

export interface WsConnectConfig extends ConnectionsConfig {
  graphTable: string;
}

export function wsConnectConfigFromEnv(env: Env): WsConnectConfig {
  const parsed = parseEnv('ws-connect', { ...connectionsShape, GRAPH_TABLE: required }, env);
  return { ...connectionsOf(parsed), graphTable: parsed.GRAPH_TABLE };
}

export function wsDisconnectConfigFromEnv(env: Env): ConnectionsConfig {
  return connectionsOf(parseEnv('ws-disconnect', connectionsShape, env));
}

export interface WsDefaultConfig {
  managementEndpoint: string;
}

export function wsDefaultConfigFromEnv(env: Env): WsDefaultConfig {
  return { managementEndpoint: parseEnv('ws-default', { WS_MANAGEMENT_ENDPOINT: url }, env).WS_MANAGEMENT_ENDPOINT };
}

export interface AuthorizerConfig {
  issuer: string;
  audience: string;
  jwksUrl: string;
  tenantClaim?: string;
  /** Single-tenant apps: the tenant of every token. */
  fixedTenant?: string;
}

export function authorizerConfigFromEnv(env: Env): AuthorizerConfig {
  const parsed = parseEnv('authorizer', { JWT_ISSUER: required, JWT_AUDIENCE: required, JWKS_URL: url, TENANT_CLAIM: optionalString, FIXED_TENANT: optionalString }, env);
  return {
    issuer: parsed.JWT_ISSUER,
    audience: parsed.JWT_AUDIENCE,
    jwksUrl: parsed.JWKS_URL,
    ...(parsed.TENANT_CLAIM ? { tenantClaim: parsed.TENANT_CLAIM } : {}),
    ...(parsed.FIXED_TENANT ? { fixedTenant: parsed.FIXED_TENANT } : {}),
  };
}

// --- Local runtime (npm start) ----------------------------------------------------------------

export const LOCAL_INFO_BATCH_WINDOW_MS_DEFAULT = 2_000;
export const LOCAL_SEND_AT_MIN_DELAY_MS_DEFAULT = 1_000;
/** Local batching window of the email queue (a burst collapses into one digest email); AWS default 60 s. */
export const LOCAL_CHANNEL_BATCH_WINDOW_MS_DEFAULT = 2_000;
/** Local function timeout; the queues' visibility timeout defaults to 6x it (AWS's rule for Lambda event sources). */
export const LOCAL_FUNCTION_TIMEOUT_MS_DEFAULT = 5_000;
/** Local intake back-pressure: about 30-60 s of the local fan-out's throughput (BENCHMARKS.md, suite `intake`). */
export const INTAKE_BACKLOG_LIMIT_DEFAULT = 2_000;

export const localSettingsShape = {
  HOST: z.preprocess(unsetIfEmpty, z.string().default('127.0.0.1')),
  PORT: integer(3000, 0),
  WS_PORT: integer(3001, 0),
  DATA_DIR: z.preprocess(unsetIfEmpty, z.string().default('.local/data')),
  CELEBRITY_THRESHOLD: integer(10_000, 1),
  INFO_BATCH_WINDOW_MS: integer(LOCAL_INFO_BATCH_WINDOW_MS_DEFAULT, 0),
  FEED_SHARDS: integer(4, 1),
  FUNCTION_TIMEOUT_MS: integer(LOCAL_FUNCTION_TIMEOUT_MS_DEFAULT, 1),
  // Unset: the pipeline derives it from FUNCTION_TIMEOUT_MS (6x), so overriding the timeout alone keeps AWS's rule.
  QUEUE_VISIBILITY_TIMEOUT_MS: optionalInteger(1),
  MAX_RECEIVE_COUNT: integer(5, 1),
  INTAKE_BACKLOG_LIMIT: integer(INTAKE_BACKLOG_LIMIT_DEFAULT, 0),
  RATE_LIMIT_PER_MINUTE: integer(RATE_LIMIT_PER_MINUTE_DEFAULT, 0),
  SEND_AT_MIN_DELAY_MS: integer(LOCAL_SEND_AT_MIN_DELAY_MS_DEFAULT, 0),
  LOG_LEVEL: optionalString,
  CHANNEL_BATCH_WINDOW_MS: integer(LOCAL_CHANNEL_BATCH_WINDOW_MS_DEFAULT, 0),
  CHANNEL_RATE_LIMIT_PER_WINDOW: integer(CHANNEL_RATE_LIMIT_PER_WINDOW_DEFAULT, 0),
};

export function localEnvFromEnv(env: Env): z.output<z.ZodObject<typeof localSettingsShape>> {
  return parseEnv('local runtime', localSettingsShape, env);
}

/** Delivery trace and dead-letter reporting of the queue consumers (fan-out, delivery). */
export interface ObservabilityConfig {
  /** How long a delivery-trace record lives (`TRACE_TTL_DAYS`, default 7). */
  traceTtlSeconds: number;
  /** The consumer queue's maxReceiveCount: a record failing its last receive is logged at WARN as dead-lettered. */
  maxReceiveCount?: number;
}

export const TRACE_TTL_DAYS_DEFAULT = 7;

export function observabilityConfigFromEnv(env: Env): ObservabilityConfig {
  const parsed = parseEnv('observability', { TRACE_TTL_DAYS: integer(TRACE_TTL_DAYS_DEFAULT, 1), MAX_RECEIVE_COUNT: optionalInteger(1) }, env);
  return { traceTtlSeconds: parsed.TRACE_TTL_DAYS * 86_400, ...(parsed.MAX_RECEIVE_COUNT !== undefined ? { maxReceiveCount: parsed.MAX_RECEIVE_COUNT } : {}) };
}
