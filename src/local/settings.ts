/** Local runtime settings (`npm start`) from the environment (CONTRACT.md, local runtime): their variables and defaults. */
import * as z from 'zod';
import { corsOrigins, integer, optionalInteger, optionalString, parseEnv, unsetIfEmpty } from '../app/config-parsing.js';
import { CHANNEL_RATE_LIMIT_PER_WINDOW_DEFAULT } from '../app/channels.js';
import { SMS_DAILY_LIMIT_DEFAULT, SMS_DAILY_LIMIT_PER_USER_DEFAULT } from '../core/channels/sms.js';
import { RATE_LIMIT_PER_MINUTE_DEFAULT } from '../core/preferences/delivery-policy.js';
import { PREFERENCES_CACHE_TTL_MS_DEFAULT } from '../core/preferences/preferences-cache.js';
import type { Env } from '../env.js';

export const LOCAL_INFO_BATCH_WINDOW_MS_DEFAULT = 2_000;
export const LOCAL_SEND_AT_MIN_DELAY_MS_DEFAULT = 1_000;
/** Local batching window of the email queue (a burst collapses into one digest email); AWS default 60 s. */
export const LOCAL_CHANNEL_BATCH_WINDOW_MS_DEFAULT = 2_000;
/** Local function timeout; the queues' visibility timeout defaults to 6x it (AWS's rule for Lambda event sources). */
export const LOCAL_FUNCTION_TIMEOUT_MS_DEFAULT = 5_000;
/** Local intake back-pressure, a hard cap: about 30-60 s of the local fan-out's throughput (BENCHMARKS.md, suite `intake`). */
export const INTAKE_BACKLOG_LIMIT_DEFAULT = 2_000;
/** Local intake back-pressure, early: the backlog an intake queue may hold, in seconds of its measured drain rate (and its oldest waiting message's age). */
export const INTAKE_BACKLOG_SECONDS_DEFAULT = 5;

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
  INTAKE_BACKLOG_SECONDS: integer(INTAKE_BACKLOG_SECONDS_DEFAULT, 0),
  RATE_LIMIT_PER_MINUTE: integer(RATE_LIMIT_PER_MINUTE_DEFAULT, 0),
  SEND_AT_MIN_DELAY_MS: integer(LOCAL_SEND_AT_MIN_DELAY_MS_DEFAULT, 0),
  LOG_LEVEL: optionalString,
  CHANNEL_BATCH_WINDOW_MS: integer(LOCAL_CHANNEL_BATCH_WINDOW_MS_DEFAULT, 0),
  CHANNEL_RATE_LIMIT_PER_WINDOW: integer(CHANNEL_RATE_LIMIT_PER_WINDOW_DEFAULT, 0),
  // The SMS spend guards (as the construct's channels.sms.dailyLimitPerUser / dailyLimit): texts per user per UTC day, and in all.
  SMS_DAILY_LIMIT_PER_USER: integer(SMS_DAILY_LIMIT_PER_USER_DEFAULT, 0),
  SMS_DAILY_LIMIT: integer(SMS_DAILY_LIMIT_DEFAULT, 0),
  // The stand-in's number with self-managed opt-outs: the inbound function, not the stand-in, answers HELP / STOP / START.
  SMS_SELF_MANAGED_OPT_OUTS: z.preprocess(unsetIfEmpty, z.enum(['true', 'false']).default('false')),
  // Replaces every type's escalation delay (seconds; 0 = the catalog's): a demo or test sees escalations without waiting 15 minutes.
  ESCALATION_DELAY_SECONDS: integer(0, 0),
  PREFERENCES_CACHE_TTL_MS: integer(PREFERENCES_CACHE_TTL_MS_DEFAULT, 0),
  RECORD_AWS_CALLS: optionalString,
  LOCAL_FUNCTIONS: optionalString,
  // A team's catalog module (what `NotificationInbox` gets as `catalogEntry`); unset: the package's catalog.
  CATALOG_ENTRY: optionalString,
  // Origins of the pages that call the REST API (and, when named, /dev/token); `*` by default, as the CDK setting.
  CORS_ALLOW_ORIGINS: corsOrigins,
};

/** The parsed variables, defaults applied (the settings reference in docs/ is generated from it). */
export function localEnvFromEnv(env: Env): z.output<z.ZodObject<typeof localSettingsShape>> {
  return parseEnv('local runtime', localSettingsShape, env);
}

export interface LocalSettings {
  host: string;
  port: number;
  wsPort: number;
  dataDir: string;
  celebrityThreshold: number;
  /** Info queue batching window; AWS default 30 s, local default 2 s so a demo feels live. */
  infoBatchWindowMs: number;
  feedShards: number;
  /** Timeout of the local functions: their Lambda context's remaining time (idempotency records expire with it). Default 5 s. */
  functionTimeoutMs?: number;
  /** Local queues: visibility timeout of every queue (a failed record reappears after it). Default 6 x functionTimeoutMs (AWS's rule). */
  queueVisibilityTimeoutMs?: number;
  /** Local queues: receives before a message moves to its DLQ. Default 5 (AWS advice for Lambda consumers). */
  maxReceiveCount?: number;
  /** Live pushes per user per minute before the rest of the minute collapses into one digest (0 = off). Default 30. */
  rateLimitPerMinute?: number;
  /** Length of a rate-limit window; a minute unless a test shortens it. */
  rateLimitWindowMs?: number;
  /** A `sendAt` at most this far ahead is sent now. AWS default 60 s (Scheduler precision); local default 1 s (its timers are exact). */
  sendAtMinDelayMs?: number;
  /** PutEvents entries are throttled (per-entry ThrottlingException) while their intake queue holds this many messages (0 = off). Default 2,000. */
  intakeBacklogLimit?: number;
  /** PutEvents entries are throttled while their intake queue holds more than this many seconds of its consumer's measured drain rate, or its oldest waiting message is older (0 = only the limit). Default 5. */
  intakeBacklogSeconds?: number;
  /** Powertools log level of the local runtime's logger. Default WARN. */
  logLevel?: string;
  /** Batching window of the email queue (a burst collapses into one digest email). Default 2 s locally. */
  channelBatchWindowMs?: number;
  /** Push / email messages per user per rate-limit window before the rest wait for one digest (0 = off). Default 5. */
  channelRateLimitPerWindow?: number;
  /** SMS spend guard: texts per user per UTC day (0 sends none). Default 10, as on AWS. */
  smsDailyLimitPerUser?: number;
  /** SMS spend guard: texts per UTC day in all (0 sends none). Default 10,000, as on AWS. */
  smsDailyLimit?: number;
  /** The SMS stand-in's number has self-managed opt-outs: the inbound function answers the keywords and the stand-in neither lists nor answers them. Default false (the service's default). */
  smsSelfManagedOptOuts?: boolean;
  /** Replaces every type's `escalation.afterSeconds` (0 or unset: the catalog's). */
  escalationDelaySeconds?: number;
  /** How long fan-out, delivery, the channels and the inbox read trust a preferences read. Default 30 s (as on AWS). */
  preferencesCacheTtlMs?: number;
  /** Directory where every AWS call of each function is recorded for the least-privilege check; unset: off. */
  recordAwsCallsDir?: string;
  /** A cdk.out directory (`npm run synth:local`): run the deployed esbuild bundles instead of the sources. */
  functionsFrom?: string;
  /** A team's catalog module (the construct's `catalogEntry`): bundled, checked and served by every function. Default: the package's catalog. */
  catalogEntry?: string;
  /** CORS origins of the REST API; `/dev/token` answers the ones named (with `*`: pages on a loopback host). Default `['*']`. */
  corsAllowOrigins?: string[];
}

export function localSettingsFromEnv(env: Env = process.env): LocalSettings {
  const parsed = localEnvFromEnv(env);
  return {
    host: parsed.HOST,
    port: parsed.PORT,
    wsPort: parsed.WS_PORT,
    dataDir: parsed.DATA_DIR,
    celebrityThreshold: parsed.CELEBRITY_THRESHOLD,
    infoBatchWindowMs: parsed.INFO_BATCH_WINDOW_MS,
    feedShards: parsed.FEED_SHARDS,
    functionTimeoutMs: parsed.FUNCTION_TIMEOUT_MS,
    ...(parsed.QUEUE_VISIBILITY_TIMEOUT_MS !== undefined ? { queueVisibilityTimeoutMs: parsed.QUEUE_VISIBILITY_TIMEOUT_MS } : {}),
    maxReceiveCount: parsed.MAX_RECEIVE_COUNT,
    rateLimitPerMinute: parsed.RATE_LIMIT_PER_MINUTE,
    sendAtMinDelayMs: parsed.SEND_AT_MIN_DELAY_MS,
    intakeBacklogLimit: parsed.INTAKE_BACKLOG_LIMIT,
    intakeBacklogSeconds: parsed.INTAKE_BACKLOG_SECONDS,
    ...(parsed.LOG_LEVEL ? { logLevel: parsed.LOG_LEVEL } : {}),
    channelBatchWindowMs: parsed.CHANNEL_BATCH_WINDOW_MS,
    channelRateLimitPerWindow: parsed.CHANNEL_RATE_LIMIT_PER_WINDOW,
    smsDailyLimitPerUser: parsed.SMS_DAILY_LIMIT_PER_USER,
    smsDailyLimit: parsed.SMS_DAILY_LIMIT,
    smsSelfManagedOptOuts: parsed.SMS_SELF_MANAGED_OPT_OUTS === 'true',
    ...(parsed.ESCALATION_DELAY_SECONDS > 0 ? { escalationDelaySeconds: parsed.ESCALATION_DELAY_SECONDS } : {}),
    preferencesCacheTtlMs: parsed.PREFERENCES_CACHE_TTL_MS,
    ...(parsed.RECORD_AWS_CALLS ? { recordAwsCallsDir: parsed.RECORD_AWS_CALLS } : {}),
    ...(parsed.LOCAL_FUNCTIONS ? { functionsFrom: parsed.LOCAL_FUNCTIONS } : {}),
    ...(parsed.CATALOG_ENTRY ? { catalogEntry: parsed.CATALOG_ENTRY } : {}),
    corsAllowOrigins: parsed.CORS_ALLOW_ORIGINS,
  };
}
