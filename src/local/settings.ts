/** Local runtime settings from the environment (CONTRACT.md, local runtime); names and defaults in src/app/config.ts. */
import { localEnvFromEnv, type Env } from '../app/config.js';

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
  /** Powertools log level of the local runtime's logger. Default WARN. */
  logLevel?: string;
  /** Batching window of the email queue (a burst collapses into one digest email). Default 2 s locally. */
  channelBatchWindowMs?: number;
  /** Push / email messages per user per rate-limit window before the rest wait for one digest (0 = off). Default 5. */
  channelRateLimitPerWindow?: number;
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
    ...(parsed.LOG_LEVEL ? { logLevel: parsed.LOG_LEVEL } : {}),
    channelBatchWindowMs: parsed.CHANNEL_BATCH_WINDOW_MS,
    channelRateLimitPerWindow: parsed.CHANNEL_RATE_LIMIT_PER_WINDOW,
  };
}
