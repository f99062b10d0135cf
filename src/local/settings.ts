/** Local runtime settings from the environment (CONTRACT.md, local runtime). */
import { intEnv } from '../config.js';

export interface LocalSettings {
  host: string;
  port: number;
  wsPort: number;
  dataDir: string;
  celebrityThreshold: number;
  /** Info queue batching window; AWS default 30 s, local default 2 s so a demo feels live. */
  infoBatchWindowMs: number;
  feedShards: number;
  /** Local queues: visibility timeout of every queue (a failed record reappears after it). Default 5 s. */
  queueVisibilityTimeoutMs?: number;
  /** Local queues: receives before a message moves to its DLQ. Default 5 (AWS advice for Lambda consumers). */
  maxReceiveCount?: number;
}

export const LOCAL_INFO_BATCH_WINDOW_MS_DEFAULT = 2_000;

export function localSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): LocalSettings {
  return {
    host: env.HOST || '127.0.0.1',
    port: intEnv('PORT', 3000, env),
    wsPort: intEnv('WS_PORT', 3001, env),
    dataDir: env.DATA_DIR || '.local/data',
    celebrityThreshold: intEnv('CELEBRITY_THRESHOLD', 10_000, env),
    infoBatchWindowMs: intEnv('INFO_BATCH_WINDOW_MS', LOCAL_INFO_BATCH_WINDOW_MS_DEFAULT, env),
    feedShards: intEnv('FEED_SHARDS', 4, env),
    queueVisibilityTimeoutMs: intEnv('QUEUE_VISIBILITY_TIMEOUT_MS', 5_000, env),
    maxReceiveCount: intEnv('MAX_RECEIVE_COUNT', 5, env),
  };
}
