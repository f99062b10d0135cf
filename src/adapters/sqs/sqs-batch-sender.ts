/**
 * SendMessageBatch for any number of message bodies: 10 entries per call (the API's limit) and at
 * most 256 KiB per call, failed entries retried with exponential backoff and full jitter.
 */
import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { fullJitterDelayMs, sleepMs } from '../backoff.js';

const SEND_BATCH_LIMIT = 10;
/** Total payload of one SendMessageBatch call. */
const SEND_BATCH_MAX_BYTES = 256 * 1024;

export interface SqsSendOptions {
  maxAttempts?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

export class SqsSendError extends Error {
  override readonly name = 'SqsSendError';
  constructor(
    readonly queueUrl: string,
    readonly failures: { code?: string; message?: string }[],
  ) {
    super(`${failures.length} message(s) not accepted by ${queueUrl}: ${failures.map((failure) => failure.code ?? 'unknown').join(', ')}`);
  }
}

/** A body with its own SQS DelaySeconds (0-900): invisible to consumers that long. */
export interface DelayedBody {
  body: string;
  delaySeconds: number;
}

type Outgoing = string | DelayedBody;

/** Groups bodies into batches of at most 10 entries and 256 KiB. */
function planSendBatches(bodies: readonly Outgoing[]): Outgoing[][] {
  const batches: Outgoing[][] = [];
  let current: Outgoing[] = [];
  let bytes = 0;
  for (const body of bodies) {
    const size = Buffer.byteLength(typeof body === 'string' ? body : body.body);
    if (current.length > 0 && (current.length === SEND_BATCH_LIMIT || bytes + size > SEND_BATCH_MAX_BYTES)) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(body);
    bytes += size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

export async function sendAllMessages(client: SQSClient, queueUrl: string, bodies: readonly Outgoing[], options: SqsSendOptions = {}): Promise<void> {
  const { maxAttempts = 5, baseDelayMs = 50, maxDelayMs = 2_000, sleep = sleepMs, random = Math.random } = options;
  for (const batch of planSendBatches(bodies)) {
    let pending = batch.map((body, index) => (typeof body === 'string' ? { Id: String(index), MessageBody: body } : { Id: String(index), MessageBody: body.body, DelaySeconds: body.delaySeconds }));
    for (let attempt = 1; ; attempt += 1) {
      const output = await client.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: pending }));
      const failed = output.Failed ?? [];
      if (failed.length === 0) break;
      // Sender faults (bad entry) will not succeed on retry; service faults are retried.
      const retryable = failed.filter((failure) => !failure.SenderFault);
      if (retryable.length < failed.length || attempt >= maxAttempts) {
        throw new SqsSendError(queueUrl, failed.map((failure) => ({ code: failure.Code, message: failure.Message })));
      }
      const failedIds = new Set(retryable.map((failure) => failure.Id));
      pending = pending.filter((entry) => failedIds.has(entry.Id));
      await sleep(fullJitterDelayMs(attempt, { baseDelayMs, maxDelayMs, random }));
    }
  }
}
