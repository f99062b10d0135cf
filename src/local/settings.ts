/** Local runtime settings from the environment (CONTRACT.md, local runtime). */
import { intEnv } from '../config.js';
import { RATE_LIMIT_PER_MINUTE_DEFAULT } from '../core/live-delivery-policy.js';

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
}

export const LOCAL_INFO_BATCH_WINDOW_MS_DEFAULT = 2_000;
export const LOCAL_SEND_AT_MIN_DELAY_MS_DEFAULT = 1_000;
/** Local function timeout; the queues' visibility timeout defaults to 6x it (AWS's rule for Lambda event sources). */
export const LOCAL_FUNCTION_TIMEOUT_MS_DEFAULT = 5_000;

export function localSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): LocalSettings {
  return {
    host: env.HOST || '127.0.0.1',
    port: intEnv('PORT', 3000, env),
    wsPort: intEnv('WS_PORT', 3001, env),
    dataDir: env.DATA_DIR || '.local/data',
    celebrityThreshold: intEnv('CELEBRITY_THRESHOLD', 10_000, env),
    infoBatchWindowMs: intEnv('INFO_BATCH_WINDOW_MS', LOCAL_INFO_BATCH_WINDOW_MS_DEFAULT, env),
    feedShards: intEnv('FEED_SHARDS', 4, env),
    functionTimeoutMs: intEnv('FUNCTION_TIMEOUT_MS', LOCAL_FUNCTION_TIMEOUT_MS_DEFAULT, env),
    // Unset: the pipeline derives it from functionTimeoutMs (6x), so overriding the timeout alone keeps AWS's rule.
    ...(env.QUEUE_VISIBILITY_TIMEOUT_MS ? { queueVisibilityTimeoutMs: intEnv('QUEUE_VISIBILITY_TIMEOUT_MS', 0, env) } : {}),
    maxReceiveCount: intEnv('MAX_RECEIVE_COUNT', 5, env),
    rateLimitPerMinute: intEnv('RATE_LIMIT_PER_MINUTE', RATE_LIMIT_PER_MINUTE_DEFAULT, env),
    sendAtMinDelayMs: intEnv('SEND_AT_MIN_DELAY_MS', LOCAL_SEND_AT_MIN_DELAY_MS_DEFAULT, env),
  };
}
