/**
 * A big backlog through one durable local queue: queue `count` messages (sends of `sendBatchSize`,
 * one sync each), close, reopen on the same journal directory, drain with a Lambda-style consumer,
 * and report every body seen (to check exactly-once).
 */
import { LocalQueue } from '../../src/local/sqs/index.js';
import { pollUntil } from './poll-until.js';

export interface BacklogRun {
  sendMs: number;
  reopenMs: number;
  drainMs: number;
  /** Times each body was handled, by index. */
  handledCounts: Uint8Array;
  duplicates: number;
}

export async function queueCloseReopenDrain(dir: string, count: number, sendBatchSize = 1_000): Promise<BacklogRun> {
  const options = { name: 'Backlog', baseUrl: 'http://127.0.0.1:0', region: 'us-east-1', visibilityTimeoutMs: 60_000, journalDir: dir };
  const sendStarted = Date.now();
  const first = new LocalQueue(options);
  for (let i = 0; i < count; i += sendBatchSize) {
    first.sendBatch(Array.from({ length: Math.min(sendBatchSize, count - i) }, (_, j) => `m${i + j}`));
  }
  first.close();
  const sendMs = Date.now() - sendStarted;

  const reopenStarted = Date.now();
  const second = new LocalQueue(options);
  const reopenMs = Date.now() - reopenStarted;
  const handledCounts = new Uint8Array(count);
  let duplicates = 0;
  let handled = 0;
  const drainStarted = Date.now();
  second.attachConsumer(
    async (event) => {
      for (const record of event.Records) {
        const index = Number(record.body.slice(1));
        if (handledCounts[index]! > 0) duplicates += 1;
        handledCounts[index] = handledCounts[index]! + 1;
        handled += 1;
      }
    },
    { batchSize: 100, maxConcurrency: 4 },
  );
  try {
    await pollUntil(() => handled >= count && second.size === 0, { attempts: 6_000, intervalMs: 20 }, `${count} messages drained`);
  } finally {
    second.close();
  }
  return { sendMs, reopenMs, drainMs: Date.now() - drainStarted, handledCounts, duplicates };
}
