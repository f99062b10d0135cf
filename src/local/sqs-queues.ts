/**
 * Local SQS: queues with visibility timeout, maxReceiveCount -> DLQ, and Lambda-style consumers
 * (batch size, batching window, partial batch responses) that invoke the same handler factories as
 * AWS with real SQS event shapes. `createSqsRoute` serves the SQS JSON protocol (AWS JSON 1.0) on
 * the local HTTP server, so the real `@aws-sdk/client-sqs` adapters are the code path locally too.
 *
 * Local deviation: a consumer never times out, so a message is not redelivered while its batch is
 * still running; a failed message becomes visible again one visibility timeout after its receive.
 *
 * With `journalDir` a queue is durable (src/local/queue-journal.ts): sends are journaled and synced
 * before they are answered, receives, deletes and DLQ moves are journaled, and on open every message
 * not deleted is visible again with its receive count (in-flight ones are redelivered: at-least-once).
 * Without it (unit tests) a queue is in memory only.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { LocalRequest, LocalResponse, LocalRoute } from './http-router.js';
import { QueueJournal, type JournalRecord } from './queue-journal.js';

export const LOCAL_ACCOUNT_ID = '000000000000';

export type LocalSqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | void>;

export interface ConsumerOptions {
  /** Records per invocation (SQS event source mapping BatchSize). */
  batchSize?: number;
  /** How long to gather records before invoking (MaximumBatchingWindowInSeconds), ms. */
  batchingWindowMs?: number;
  /** Batches in flight at once. */
  maxConcurrency?: number;
  /** Name reported in the Lambda context. */
  functionName?: string;
}

export interface LocalQueueOptions {
  name: string;
  baseUrl: string;
  region: string;
  visibilityTimeoutMs: number;
  /** With `deadLetterQueue`: receives before a message moves there. */
  maxReceiveCount?: number;
  deadLetterQueue?: LocalQueue;
  /** Consumer settings used when `attachConsumer` is called without options. */
  consumerDefaults?: ConsumerOptions;
  /** Directory of the queue's journal `<name>.jsonl` (durable queue); without it the queue is in memory only. */
  journalDir?: string;
  onError?: (error: unknown) => void;
}

export interface LocalMessage {
  messageId: string;
  body: string;
  md5OfBody: string;
  sentAt: number;
  receiveCount: number;
  firstReceiveAt?: number;
  visibleAt: number;
  receiptHandle?: string;
  /** Held by a running consumer batch. */
  inFlight: boolean;
}

export interface SentMessage {
  messageId: string;
  body: string;
}

const md5 = (text: string) => createHash('md5').update(text).digest('hex');

export class QueueDoesNotExistError extends Error {
  override readonly name = 'QueueDoesNotExistError';
}

/** A send to a closed queue (the runtime is stopping): the message is refused, not silently lost. */
export class QueueClosedError extends Error {
  override readonly name = 'QueueClosedError';
}

export class LocalQueue {
  readonly name: string;
  readonly url: string;
  readonly arn: string;
  readonly deadLetterQueue?: LocalQueue;
  readonly consumerDefaults: ConsumerOptions;
  private readonly messages = new Map<string, LocalMessage>();
  private readonly sendListeners = new Set<(message: SentMessage) => void>();
  private consumer?: { handler: LocalSqsHandler; options: Required<ConsumerOptions>; running: number };
  private timer?: NodeJS.Timeout;
  private scheduled = false;
  private closed = false;
  private consumerEnabled = true;
  private readonly journal?: QueueJournal;

  constructor(private readonly options: LocalQueueOptions) {
    this.name = options.name;
    this.url = `${options.baseUrl}/${LOCAL_ACCOUNT_ID}/${options.name}`;
    this.arn = `arn:aws:sqs:${options.region}:${LOCAL_ACCOUNT_ID}:${options.name}`;
    this.deadLetterQueue = options.deadLetterQueue;
    this.consumerDefaults = options.consumerDefaults ?? {};
    if (options.journalDir !== undefined) {
      const opened = QueueJournal.open(options.journalDir, options.name);
      this.journal = opened.journal;
      const now = Date.now();
      for (const stored of opened.messages) {
        this.messages.set(stored.messageId, { ...stored, md5OfBody: md5(stored.body), visibleAt: now, inFlight: false });
      }
      if (opened.unreadableLines > 0) options.onError?.(new Error(`${this.name}: ${opened.unreadableLines} unreadable journal line(s) in ${opened.journal.file} ignored`));
    }
  }

  send(body: string): SentMessage & { md5OfBody: string } {
    const [sent] = this.sendBatch([body]);
    return sent!;
  }

  /** Sends several messages; a durable queue journals and syncs them with one write before returning. */
  sendBatch(bodies: readonly string[]): Array<SentMessage & { md5OfBody: string }> {
    if (this.closed) throw new QueueClosedError(`queue ${this.name} is closed`);
    const now = Date.now();
    const messages: LocalMessage[] = bodies.map((body) => ({ messageId: randomUUID(), body, md5OfBody: md5(body), sentAt: now, receiveCount: 0, visibleAt: now, inFlight: false }));
    this.journal?.append(
      messages.map((message) => ({ op: 'sent', id: message.messageId, body: message.body, sentAt: message.sentAt })),
      true,
    );
    for (const message of messages) {
      this.messages.set(message.messageId, message);
      for (const listener of this.sendListeners) listener({ messageId: message.messageId, body: message.body });
    }
    this.scheduleSoon();
    return messages.map((message) => ({ messageId: message.messageId, body: message.body, md5OfBody: message.md5OfBody }));
  }

  /** Called for every message sent to this queue (tests count delivery jobs with it). */
  onSend(listener: (message: SentMessage) => void): () => void {
    this.sendListeners.add(listener);
    return () => this.sendListeners.delete(listener);
  }

  /** Visible messages, oldest first, marked received (ReceiveMessage). Over-received ones go to the DLQ. */
  receive(maxMessages: number, visibilityTimeoutMs = this.options.visibilityTimeoutMs, holdInFlight = false): LocalMessage[] {
    const now = Date.now();
    this.redriveExhausted(now);
    const received: LocalMessage[] = [];
    for (const message of this.visible(now)) {
      if (received.length >= maxMessages) break;
      message.receiveCount += 1;
      message.firstReceiveAt ??= now;
      message.visibleAt = now + visibilityTimeoutMs;
      message.receiptHandle = `${message.messageId}:${randomUUID()}`;
      message.inFlight = holdInFlight;
      received.push(message);
    }
    this.journal?.append(received.map((message) => ({ op: 'received', id: message.messageId, n: message.receiveCount, at: message.firstReceiveAt! })));
    return received;
  }

  /** DeleteMessage: only the latest receipt handle of a message is valid. */
  delete(receiptHandle: string): boolean {
    const messageId = receiptHandle.split(':')[0] ?? '';
    const message = this.messages.get(messageId);
    if (!message || message.receiptHandle !== receiptHandle) return false;
    this.removeAll([messageId], 'deleted');
    return true;
  }

  /** Every message currently stored (visible or not), oldest first. */
  peek(): LocalMessage[] {
    return [...this.messages.values()].sort((a, b) => a.sentAt - b.sentAt);
  }

  depth(): { visible: number; notVisible: number } {
    const now = Date.now();
    const visible = this.visible(now).length;
    return { visible, notVisible: this.messages.size - visible };
  }

  purge(): void {
    this.messages.clear();
    this.journal?.append([{ op: 'purged' }]);
  }

  /**
   * Pauses or resumes the consumer, like `UpdateEventSourceMapping --enabled`: while paused,
   * messages stay in the queue (tests use it to stop the runtime with messages not yet handled).
   */
  setConsumerEnabled(enabled: boolean): void {
    this.consumerEnabled = enabled;
    if (enabled) this.schedule();
    else if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
  }

  /** Attaches a Lambda-style consumer (one per queue, like one event source mapping). */
  attachConsumer(handler: LocalSqsHandler, options: ConsumerOptions = {}): () => void {
    if (this.consumer) throw new Error(`queue ${this.name} already has a consumer`);
    const merged = { ...this.consumerDefaults, ...options };
    this.consumer = {
      handler,
      options: {
        batchSize: merged.batchSize ?? 10,
        batchingWindowMs: merged.batchingWindowMs ?? 0,
        maxConcurrency: merged.maxConcurrency ?? 2,
        functionName: merged.functionName ?? `${this.name}-consumer`,
      },
      running: 0,
    };
    this.schedule();
    return () => {
      this.consumer = undefined;
    };
  }

  /** Stops the consumer and closes the journal; batches still running are not waited for (their messages are redelivered after a restart). */
  close(): void {
    this.closed = true;
    this.consumer = undefined;
    if (this.timer) clearTimeout(this.timer);
    this.journal?.close();
  }

  /** Removes messages (deleted, or moved to the DLQ), journaled with one write. */
  private removeAll(messageIds: readonly string[], op: 'deleted' | 'dlq'): void {
    for (const messageId of messageIds) this.messages.delete(messageId);
    if (!this.journal || messageIds.length === 0) return;
    this.journal.append(messageIds.map((id): JournalRecord => ({ op, id })));
    this.journal.compactIfLarge(() => this.journaledMessages(), this.messages.size);
  }

  private *journaledMessages() {
    for (const message of this.messages.values()) yield message;
  }

  private visible(now: number): LocalMessage[] {
    return [...this.messages.values()].filter((message) => !message.inFlight && message.visibleAt <= now).sort((a, b) => a.sentAt - b.sentAt);
  }

  private redriveExhausted(now: number): void {
    const { maxReceiveCount, deadLetterQueue } = this.options;
    if (maxReceiveCount === undefined || !deadLetterQueue || deadLetterQueue.closed) return;
    const exhausted = this.visible(now).filter((message) => message.receiveCount >= maxReceiveCount);
    if (exhausted.length === 0) return;
    // Journaled in the DLQ (synced) before it leaves this queue: a crash in between duplicates, never loses.
    deadLetterQueue.sendBatch(exhausted.map((message) => message.body));
    this.removeAll(
      exhausted.map((message) => message.messageId),
      'dlq',
    );
  }

  /** Coalesces the sends of one SendMessageBatch (or one PutEvents) into one scheduling decision. */
  private scheduleSoon(): void {
    if (this.scheduled || !this.consumer || !this.consumerEnabled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.schedule();
    });
  }

  /** Decides when the consumer next runs: now (full batch or window over), or at a timer. */
  private schedule(): void {
    if (this.closed || !this.consumer) return;
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (!this.consumerEnabled) return;
    const consumer = this.consumer;
    const now = Date.now();
    this.redriveExhausted(now);
    const visible = this.visible(now);
    if (visible.length > 0 && consumer.running < consumer.options.maxConcurrency) {
      const oldestVisibleSince = Math.min(...visible.map((message) => Math.max(message.visibleAt, message.sentAt)));
      const windowEnds = oldestVisibleSince + consumer.options.batchingWindowMs;
      if (visible.length >= consumer.options.batchSize || windowEnds <= now) {
        void this.invoke(consumer);
        this.schedule();
        return;
      }
      this.timer = setTimeout(() => this.schedule(), windowEnds - now);
      return;
    }
    const waiting = [...this.messages.values()].filter((message) => !message.inFlight && message.visibleAt > now);
    if (waiting.length > 0) {
      const next = Math.min(...waiting.map((message) => message.visibleAt));
      this.timer = setTimeout(() => this.schedule(), Math.max(1, next - now));
    }
  }

  private async invoke(consumer: NonNullable<LocalQueue['consumer']>): Promise<void> {
    const batch = this.receive(consumer.options.batchSize, this.options.visibilityTimeoutMs, true);
    if (batch.length === 0) return;
    consumer.running += 1;
    const receivedAt = Date.now();
    let failedIds: Set<string>;
    try {
      const response = await consumer.handler(this.toEvent(batch), localLambdaContext(consumer.options.functionName));
      failedIds = new Set((response?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier));
      const batchIds = new Set(batch.map((message) => message.messageId));
      // As with Lambda: an itemIdentifier that is empty or not a message of this batch fails the whole batch.
      const unknown = [...failedIds].filter((id) => typeof id !== 'string' || !batchIds.has(id));
      if (unknown.length > 0) {
        this.options.onError?.(new Error(`${this.name}: batchItemFailures names ${unknown.length} itemIdentifier(s) not in the batch; the whole batch fails`));
        failedIds = batchIds;
      }
    } catch (error) {
      // A thrown invocation fails the whole batch, as with Lambda.
      this.options.onError?.(error);
      failedIds = new Set(batch.map((message) => message.messageId));
    } finally {
      consumer.running -= 1;
    }
    for (const message of batch) {
      message.inFlight = false;
      if (failedIds.has(message.messageId)) message.visibleAt = Math.max(Date.now(), receivedAt + this.options.visibilityTimeoutMs);
      else this.delete(message.receiptHandle!);
    }
    this.schedule();
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
      eventSourceARN: this.arn,
      awsRegion: this.options.region,
    }));
    return { Records: records };
  }
}

/** A Lambda context for locally invoked handlers (Powertools reads the remaining time from it). */
export function localLambdaContext(functionName: string, timeoutMs = 60_000): Context {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:${LOCAL_ACCOUNT_ID}:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** The local queues by name, for the SQS endpoint. */
export class LocalQueueRegistry {
  private readonly byName = new Map<string, LocalQueue>();

  add(queue: LocalQueue): LocalQueue {
    this.byName.set(queue.name, queue);
    return queue;
  }

  byUrl(queueUrl: unknown): LocalQueue {
    const name = typeof queueUrl === 'string' ? queueUrl.split('/').pop() ?? '' : '';
    const queue = this.byName.get(name);
    if (!queue) throw new QueueDoesNotExistError(`The specified queue does not exist: ${String(queueUrl)}`);
    return queue;
  }

  byQueueName(name: unknown): LocalQueue {
    const queue = typeof name === 'string' ? this.byName.get(name) : undefined;
    if (!queue) throw new QueueDoesNotExistError(`The specified queue does not exist: ${String(name)}`);
    return queue;
  }

  all(): LocalQueue[] {
    return [...this.byName.values()];
  }
}

const SQS_JSON = { 'content-type': 'application/x-amz-json-1.0' };

function sqsError(status: number, type: string, message: string): LocalResponse {
  return { status, headers: { ...SQS_JSON, 'x-amzn-query-error': `${type};Sender` }, body: JSON.stringify({ __type: `com.amazonaws.sqs#${type}`, message }) };
}

interface BatchEntry {
  Id?: unknown;
  MessageBody?: unknown;
  ReceiptHandle?: unknown;
}

type SqsAction = (queues: LocalQueueRegistry, input: Record<string, unknown>) => unknown;

const actions: Record<string, SqsAction> = {
  SendMessage(queues, input) {
    if (typeof input.MessageBody !== 'string' || input.MessageBody === '') throw new InvalidParameterError('MessageBody is required');
    const sent = queues.byUrl(input.QueueUrl).send(input.MessageBody);
    return { MessageId: sent.messageId, MD5OfMessageBody: sent.md5OfBody };
  },
  SendMessageBatch(queues, input) {
    const queue = queues.byUrl(input.QueueUrl);
    const entries = Array.isArray(input.Entries) ? (input.Entries as BatchEntry[]) : [];
    if (entries.length === 0) throw new InvalidParameterError('EmptyBatchRequest', 'AWS.SimpleQueueService.EmptyBatchRequest');
    if (entries.length > 10) throw new InvalidParameterError('TooManyEntriesInBatchRequest', 'AWS.SimpleQueueService.TooManyEntriesInBatchRequest');
    const valid: Array<{ Id: unknown; MessageBody: string }> = [];
    const failed: unknown[] = [];
    for (const entry of entries) {
      if (typeof entry.MessageBody === 'string' && entry.MessageBody !== '') valid.push({ Id: entry.Id, MessageBody: entry.MessageBody });
      else failed.push({ Id: entry.Id, SenderFault: true, Code: 'InvalidParameterValue', Message: 'MessageBody is required' });
    }
    // One journal write and sync for the whole batch on a durable queue.
    const sent = valid.length > 0 ? queue.sendBatch(valid.map((entry) => entry.MessageBody)) : [];
    const successful = valid.map((entry, i) => ({ Id: entry.Id, MessageId: sent[i]!.messageId, MD5OfMessageBody: sent[i]!.md5OfBody }));
    return { Successful: successful, Failed: failed };
  },
  ReceiveMessage(queues, input) {
    const queue = queues.byUrl(input.QueueUrl);
    const max = typeof input.MaxNumberOfMessages === 'number' ? Math.min(10, Math.max(1, input.MaxNumberOfMessages)) : 1;
    const visibilityMs = typeof input.VisibilityTimeout === 'number' ? input.VisibilityTimeout * 1000 : undefined;
    const messages = queue.receive(max, visibilityMs);
    return {
      Messages: messages.map((message) => ({
        MessageId: message.messageId,
        ReceiptHandle: message.receiptHandle,
        MD5OfBody: message.md5OfBody,
        Body: message.body,
        Attributes: { ApproximateReceiveCount: String(message.receiveCount), SentTimestamp: String(message.sentAt) },
      })),
    };
  },
  DeleteMessage(queues, input) {
    queues.byUrl(input.QueueUrl).delete(String(input.ReceiptHandle));
    return {};
  },
  DeleteMessageBatch(queues, input) {
    const queue = queues.byUrl(input.QueueUrl);
    const entries = Array.isArray(input.Entries) ? (input.Entries as BatchEntry[]) : [];
    for (const entry of entries) queue.delete(String(entry.ReceiptHandle));
    return { Successful: entries.map((entry) => ({ Id: entry.Id })), Failed: [] };
  },
  GetQueueUrl(queues, input) {
    return { QueueUrl: queues.byQueueName(input.QueueName).url };
  },
  GetQueueAttributes(queues, input) {
    const queue = queues.byUrl(input.QueueUrl);
    const depth = queue.depth();
    return {
      Attributes: {
        QueueArn: queue.arn,
        ApproximateNumberOfMessages: String(depth.visible),
        ApproximateNumberOfMessagesNotVisible: String(depth.notVisible),
      },
    };
  },
  PurgeQueue(queues, input) {
    queues.byUrl(input.QueueUrl).purge();
    return {};
  },
};

class InvalidParameterError extends Error {
  override readonly name = 'InvalidParameterError';
  constructor(
    message: string,
    readonly type = 'InvalidParameterValue',
  ) {
    super(message);
  }
}

/** `POST /` with `X-Amz-Target: AmazonSQS.<Action>` (AWS JSON 1.0), as `@aws-sdk/client-sqs` sends it. */
export function createSqsRoute(queues: LocalQueueRegistry): LocalRoute {
  return {
    async handle(request: LocalRequest) {
      const target = request.headers['x-amz-target'];
      if (request.method !== 'POST' || typeof target !== 'string' || !target.startsWith('AmazonSQS.')) return undefined;
      const action = actions[target.slice('AmazonSQS.'.length)];
      if (!action) return sqsError(400, 'UnsupportedOperation', `${target} is not supported by the local runtime`);
      let input: Record<string, unknown>;
      try {
        input = JSON.parse(request.body.toString('utf8') || '{}') as Record<string, unknown>;
      } catch {
        return sqsError(400, 'InvalidParameterValue', 'request body is not JSON');
      }
      try {
        return { status: 200, headers: SQS_JSON, body: JSON.stringify(action(queues, input)) };
      } catch (error) {
        if (error instanceof QueueDoesNotExistError) return sqsError(400, 'QueueDoesNotExist', error.message);
        if (error instanceof InvalidParameterError) return sqsError(400, error.type, error.message);
        if (error instanceof QueueClosedError) return { status: 503, headers: { ...SQS_JSON, 'x-amzn-query-error': 'ServiceUnavailable;Receiver' }, body: JSON.stringify({ __type: 'com.amazonaws.sqs#ServiceUnavailable', message: error.message }) };
        throw error;
      }
    },
  };
}
