/**
 * The Lambda event source mapping of one local queue: polls it with Lambda's batching rules (batch
 * size, batching window, concurrency), invokes the handler with the real SQS event shape, and
 * applies partial batch responses (failed records become visible again, the others are deleted).
 *
 * Local deviation: a running batch is never timed out, so a message is not redelivered while its
 * batch is still running; a failed message becomes visible again one visibility timeout after its
 * receive. `drain` is the graceful stop (Ctrl+C): no new batch, running ones finish.
 */
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { localLambdaContext } from './lambda-context.js';
import { LOCAL_ACCOUNT_ID } from './local-account.js';
import type { LocalMessage, LocalSqsHandler } from './message.js';

export interface ConsumerOptions {
  /** Records per invocation (SQS event source mapping BatchSize). */
  batchSize?: number;
  /** How long to gather records before invoking (MaximumBatchingWindowInSeconds), ms. */
  batchingWindowMs?: number;
  /** Batches in flight at once. */
  maxConcurrency?: number;
  /** Name reported in the Lambda context. */
  functionName?: string;
  /** The function timeout: the Lambda context's remaining time counts down from it. */
  functionTimeoutMs?: number;
}

/** What the mapping needs of its queue (LocalQueue). */
export interface PolledQueue {
  readonly name: string;
  readonly arn: string;
  readonly region: string;
  readonly visibilityTimeoutMs: number;
  countVisible(now: number): number;
  nextVisibleAt(): number | undefined;
  receive(maxMessages: number, visibilityTimeoutMs: number, holdInFlight: boolean): LocalMessage[];
  settleBatch(batch: readonly LocalMessage[], failedIds: ReadonlySet<string>, receivedAt: number): void;
}

export class EventSourceMapping {
  private readonly running = new Set<Promise<void>>();
  private timer?: NodeJS.Timeout;
  private scheduled = false;
  private enabled = true;
  private stopped = false;
  /** When the current batching window opened (the first visible record since the queue was last empty). */
  private windowOpenedAt?: number;

  constructor(
    private readonly queue: PolledQueue,
    private readonly handler: LocalSqsHandler,
    private readonly options: Required<ConsumerOptions>,
    private readonly onError?: (error: unknown) => void,
  ) {}

  /** Coalesces the sends of one SendMessageBatch (or one PutEvents) into one scheduling decision. */
  poke(): void {
    if (this.scheduled || this.stopped || !this.enabled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.schedule();
    });
  }

  setEnabled(enabled: boolean): void {
    this.enabled = enabled;
    if (enabled) this.schedule();
    else this.clearTimer();
  }

  stop(): void {
    this.stopped = true;
    this.clearTimer();
  }

  /** No new batch from now on; resolves true once the running ones have finished, false after `capMs` if some still run. */
  async drain(capMs: number): Promise<boolean> {
    this.stop();
    if (this.running.size === 0) return true;
    let timer: NodeJS.Timeout | undefined;
    const capped = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), capMs);
    });
    const finished = Promise.allSettled(Array.from(this.running)).then(() => true as const);
    try {
      return await Promise.race([finished, capped]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Decides when the consumer next runs: now (full batch or window over), or at a timer. */
  schedule(): void {
    if (this.stopped) return;
    this.clearTimer();
    if (!this.enabled) return;
    const now = Date.now();
    const visible = this.queue.countVisible(now);
    if (visible === 0) this.windowOpenedAt = undefined;
    if (visible > 0 && this.running.size < this.options.maxConcurrency) {
      this.windowOpenedAt ??= now;
      const windowEnds = this.windowOpenedAt + this.options.batchingWindowMs;
      if (visible >= this.options.batchSize || windowEnds <= now) {
        this.invoke();
        this.schedule();
        return;
      }
      this.timer = setTimeout(() => this.schedule(), windowEnds - now);
      return;
    }
    const next = this.queue.nextVisibleAt();
    if (next !== undefined) this.timer = setTimeout(() => this.schedule(), Math.max(1, next - now));
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private invoke(): void {
    const batch = this.queue.receive(this.options.batchSize, this.queue.visibilityTimeoutMs, true);
    if (batch.length === 0) return;
    const run = this.run(batch, Date.now()).finally(() => {
      this.running.delete(run);
      this.schedule();
    });
    this.running.add(run);
  }

  private async run(batch: readonly LocalMessage[], receivedAt: number): Promise<void> {
    let failedIds: Set<string>;
    try {
      const context = localLambdaContext(this.options.functionName, this.options.functionTimeoutMs, receivedAt);
      const response = await this.handler(this.toEvent(batch), context);
      failedIds = new Set((response?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier));
      const batchIds = new Set(batch.map((message) => message.messageId));
      // As with Lambda: an itemIdentifier that is empty or not a message of this batch fails the whole batch.
      const unknown = Array.from(failedIds).filter((id) => typeof id !== 'string' || !batchIds.has(id));
      if (unknown.length > 0) {
        this.onError?.(new Error(`${this.queue.name}: batchItemFailures names ${unknown.length} itemIdentifier(s) not in the batch; the whole batch fails`));
        failedIds = batchIds;
      }
    } catch (error) {
      // A thrown invocation fails the whole batch, as with Lambda.
      this.onError?.(error);
      failedIds = new Set(batch.map((message) => message.messageId));
    }
    this.queue.settleBatch(batch, failedIds, receivedAt);
  }

  private toEvent(batch: readonly LocalMessage[]): SQSEvent {
    const records: SQSRecord[] = batch.map((message) => ({
      messageId: message.messageId,
      receiptHandle: message.receiptHandle!,
      body: message.body,
      attributes: {
        ApproximateReceiveCount: String(message.receiveCount),
        SentTimestamp: String(message.sentAt),
        SenderId: LOCAL_ACCOUNT_ID,
        ApproximateFirstReceiveTimestamp: String(message.firstReceiveAt ?? message.sentAt),
      },
      messageAttributes: {},
      md5OfBody: message.md5OfBody,
      eventSource: 'aws:sqs',
      eventSourceARN: this.queue.arn,
      awsRegion: this.queue.region,
    }));
    return { Records: records };
  }
}
