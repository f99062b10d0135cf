/**
 * A local SQS queue: messages with visibility timeout and maxReceiveCount -> DLQ, optionally
 * durable through a journal (queue-journal.ts), with one Lambda-style consumer
 * (event-source-mapping.ts).
 *
 * Visibility is indexed: a min-heap of visible messages by send order and a min-heap of invisible
 * ones by visible-at, so a receive costs O(log n) per message, never a copy or sort of the queue.
 * Heap entries are invalidated lazily (a message's `generation` changes whenever it moves).
 *
 * With `journalDir` a queue is durable: sends are journaled and synced before they are answered
 * (a group commit: one fdatasync for the sends of many calls, queue-journal.ts); receives, deletes and DLQ moves are journaled; on open every message
 * not deleted is visible again with its receive count (in-flight ones are redelivered:
 * at-least-once), except that a message received by a run that may still hold its idempotency
 * record (received less than `functionTimeoutMs` ago) stays invisible until that run would have
 * timed out. Without it (unit tests) a queue is in memory only.
 */
import { createHash, randomUUID } from 'node:crypto';
import { EventSourceMapping, type ConsumerOptions } from './event-source-mapping.js';
import { LOCAL_ACCOUNT_ID } from './local-account.js';
import type { LocalMessage, LocalSqsHandler, SentMessage } from './message.js';
import { MinHeap } from './min-heap.js';
import { QueueJournal, type JournalRecord, type JournaledMessage } from './queue-journal.js';

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
  /** Timeout of the consuming function: its context's remaining time, and how long a restart holds a message a killed run had received. */
  functionTimeoutMs?: number;
  /** Directory of the queue's journal `<name>.jsonl` (durable queue); without it the queue is in memory only. */
  journalDir?: string;
  onError?: (error: unknown) => void;
  /** Told (to log at WARN) whenever messages are moved to the DLQ, with why. */
  onDeadLetter?: (moved: { queue: string; deadLetterQueue: string; messageIds: string[]; reason: string }) => void;
}

type MessageState = 'visible' | 'invisible' | 'held';

interface StoredMessage extends LocalMessage {
  /** Send order (ties of `sentAt` keep the journal order). */
  seq: number;
  state: MessageState;
  /** Changes whenever the message moves, so older heap entries of it are skipped. */
  generation: number;
}

interface HeapEntry {
  message: StoredMessage;
  generation: number;
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
  readonly region: string;
  readonly deadLetterQueue?: LocalQueue;

  /** Receives before a message moves to the DLQ (undefined: no DLQ). */
  get maxReceiveCount(): number | undefined {
    return this.options.maxReceiveCount;
  }
  readonly consumerDefaults: ConsumerOptions;
  private readonly messages = new Map<string, StoredMessage>();
  private readonly visibleHeap = new MinHeap<HeapEntry>((a, b) => a.message.sentAt < b.message.sentAt || (a.message.sentAt === b.message.sentAt && a.message.seq < b.message.seq));
  private readonly invisibleHeap = new MinHeap<HeapEntry>((a, b) => a.message.visibleAt < b.message.visibleAt);
  private visibleCount = 0;
  private nextSeq = 0;
  private drained = 0;
  private readonly sendListeners = new Set<(message: SentMessage) => void>();
  private consumer?: EventSourceMapping;
  private closed = false;
  private readonly journal?: QueueJournal;

  constructor(private readonly options: LocalQueueOptions) {
    this.name = options.name;
    this.region = options.region;
    this.url = `${options.baseUrl}/${LOCAL_ACCOUNT_ID}/${options.name}`;
    this.arn = `arn:aws:sqs:${options.region}:${LOCAL_ACCOUNT_ID}:${options.name}`;
    this.deadLetterQueue = options.deadLetterQueue;
    this.consumerDefaults = options.consumerDefaults ?? {};
    if (options.journalDir !== undefined) {
      const opened = QueueJournal.open(options.journalDir, options.name);
      this.journal = opened.journal;
      const now = Date.now();
      const exhausted: StoredMessage[] = [];
      for (const stored of opened.messages) {
        const message = this.store(stored, now);
        const heldUntil = Math.max(this.heldAfterRestartUntil(stored), stored.delayedUntil ?? 0);
        if (heldUntil > now) this.makeInvisible(message, heldUntil);
        else this.makeVisible(message, exhausted);
      }
      this.moveToDeadLetterQueue(exhausted);
      if (opened.unreadableLines > 0) options.onError?.(new Error(`${this.name}: ${opened.unreadableLines} unreadable journal line(s) in ${opened.journal.file} ignored`));
    }
  }

  get visibilityTimeoutMs(): number {
    return this.options.visibilityTimeoutMs;
  }

  get functionTimeoutMs(): number | undefined {
    return this.options.functionTimeoutMs;
  }

  /** fdatasync calls of this queue's journal so far (0 in memory). */
  get journalSyncs(): number {
    return this.journal?.syncCount ?? 0;
  }

  send(body: string, delayMs = 0): SentMessage & { md5OfBody: string } {
    const [sent] = this.sendBatch([body], [delayMs]);
    return sent!;
  }

  /**
   * Sends several messages; a durable queue journals them with one write and one sync before returning
   * (DLQ moves, scheduler deliveries). `delaysMs` (SQS DelaySeconds): a message stays invisible that
   * long, across a restart too.
   */
  sendBatch(bodies: readonly string[], delaysMs: readonly number[] = []): Array<SentMessage & { md5OfBody: string }> {
    return this.accept(bodies, delaysMs, (records) => this.journal?.append(records, true));
  }

  /**
   * Sends several messages (SendMessage, SendMessageBatch, PutEvents): journaled with one write now,
   * visible to the consumer at once (or after its delay), and answered once the journal's group commit
   * has synced them (one fdatasync for the sends of every call made meanwhile, off the event loop). A
   * kill -9 after the write loses nothing (the kernel has it); a power loss before the sync can lose a
   * message its sender was never answered for, and the sender retries it.
   */
  async sendBatchDurable(bodies: readonly string[], delaysMs: readonly number[] = []): Promise<Array<SentMessage & { md5OfBody: string }>> {
    let synced: Promise<void> | undefined;
    const answers = this.accept(bodies, delaysMs, (records) => {
      synced = this.journal?.appendDurable(records);
    });
    await synced;
    return answers;
  }

  private accept(bodies: readonly string[], delaysMs: readonly number[], journal: (records: JournalRecord[]) => void): Array<SentMessage & { md5OfBody: string }> {
    if (this.closed) throw new QueueClosedError(`queue ${this.name} is closed`);
    const now = Date.now();
    const sent: JournaledMessage[] = bodies.map((body, index) => ({ messageId: randomUUID(), body, sentAt: now, receiveCount: 0, ...((delaysMs[index] ?? 0) > 0 ? { delayedUntil: now + delaysMs[index]! } : {}) }));
    journal(sent.map((message): JournalRecord => ({ op: 'sent', id: message.messageId, body: message.body, sentAt: message.sentAt, ...(message.delayedUntil !== undefined ? { d: message.delayedUntil } : {}) })));
    const exhausted: StoredMessage[] = [];
    const answers = sent.map((journaled) => {
      const message = this.store(journaled, now);
      if (journaled.delayedUntil !== undefined) this.makeInvisible(message, journaled.delayedUntil);
      else this.makeVisible(message, exhausted);
      for (const listener of this.sendListeners) listener({ messageId: message.messageId, body: message.body });
      return { messageId: message.messageId, body: message.body, md5OfBody: message.md5OfBody };
    });
    this.consumer?.poke();
    return answers;
  }

  /** Called for every message sent to this queue (tests count delivery jobs with it). */
  onSend(listener: (message: SentMessage) => void): () => void {
    this.sendListeners.add(listener);
    return () => this.sendListeners.delete(listener);
  }

  /**
   * Visible messages, oldest first, marked received (ReceiveMessage). `holdInFlight`: held by a
   * consumer batch until `settleBatch` (the local consumer never times out).
   */
  receive(maxMessages: number, visibilityTimeoutMs = this.options.visibilityTimeoutMs, holdInFlight = false): LocalMessage[] {
    const now = Date.now();
    this.promoteDue(now);
    const received: StoredMessage[] = [];
    while (received.length < maxMessages) {
      const message = this.popVisible();
      if (!message) break;
      message.receiveCount += 1;
      message.firstReceiveAt ??= now;
      message.lastReceiveAt = now;
      message.receiptHandle = `${message.messageId}:${randomUUID()}`;
      if (holdInFlight) {
        message.visibleAt = now + visibilityTimeoutMs;
        this.leaveState(message);
        message.state = 'held';
        message.inFlight = true;
      } else this.makeInvisible(message, now + visibilityTimeoutMs);
      received.push(message);
    }
    this.journal?.append(received.map((message): JournalRecord => ({ op: 'received', id: message.messageId, n: message.receiveCount, at: message.firstReceiveAt!, r: now })));
    return received;
  }

  /** Ends a consumer batch: failed messages become visible one visibility timeout after their receive, the others are deleted (one journal write). */
  settleBatch(batch: readonly LocalMessage[], failedIds: ReadonlySet<string>, receivedAt: number): void {
    const succeeded: string[] = [];
    const visibleAt = Math.max(Date.now(), receivedAt + this.options.visibilityTimeoutMs);
    for (const handed of batch) {
      const message = this.messages.get(handed.messageId);
      if (!message || message.receiptHandle !== handed.receiptHandle) continue;
      if (failedIds.has(message.messageId)) this.makeInvisible(message, visibleAt);
      else succeeded.push(message.messageId);
    }
    this.removeAll(succeeded, 'deleted');
  }

  /** DeleteMessage: only the latest receipt handle of a message is valid. */
  delete(receiptHandle: string): boolean {
    const messageId = receiptHandle.split(':')[0] ?? '';
    const message = this.messages.get(messageId);
    if (!message || message.receiptHandle !== receiptHandle) return false;
    this.removeAll([messageId], 'deleted');
    return true;
  }

  /** Every message currently stored (visible or not), oldest first (tests and diagnostics: copies the queue). */
  peek(): LocalMessage[] {
    return Array.from(this.messages.values()).sort((a, b) => a.sentAt - b.sentAt || a.seq - b.seq);
  }

  /** Messages stored (visible or not). */
  get size(): number {
    return this.messages.size;
  }

  /** Messages removed so far (deleted, or moved to the DLQ): the intake throttle measures the consumer's drain rate with it. */
  get drainedCount(): number {
    return this.drained;
  }

  /**
   * When the oldest message no consumer has received yet was sent (delayed ones not counted), or
   * undefined. Stored messages are in send order (a Map keeps insertion order) and the received
   * ones ahead of it are the few in flight or waiting for a retry: the scan stops after `scanLimit`.
   */
  oldestWaitingSentAt(now = Date.now(), scanLimit = 1_000): number | undefined {
    let scanned = 0;
    for (const message of this.messages.values()) {
      if (message.receiveCount === 0 && (message.delayedUntil ?? 0) <= now) return message.sentAt;
      if (++scanned >= scanLimit) return undefined;
    }
    return undefined;
  }

  depth(): { visible: number; notVisible: number; delayed: number } {
    const now = Date.now();
    this.promoteDue(now);
    const delayed = this.delayedAt(now).length;
    return { visible: this.visibleCount, notVisible: this.messages.size - this.visibleCount - delayed, delayed };
  }

  /** Messages still in their DelaySeconds (never received yet): SQS's ApproximateNumberOfMessagesDelayed. */
  delayedAt(now = Date.now()): LocalMessage[] {
    return [...this.messages.values()].filter((message) => message.receiveCount === 0 && (message.delayedUntil ?? 0) > now);
  }

  /** Stored messages but the delayed ones: what a "queue drained" check waits for (a delayed escalation is not work left). */
  peekUndelayed(now = Date.now()): LocalMessage[] {
    return this.peek().filter((message) => !(message.receiveCount === 0 && (message.delayedUntil ?? 0) > now));
  }

  /** Visible messages now (the consumer's "full batch" test); promotes the due ones first. */
  countVisible(now = Date.now()): number {
    this.promoteDue(now);
    return this.visibleCount;
  }

  /** When the next invisible message becomes visible, if any. */
  nextVisibleAt(): number | undefined {
    for (let top = this.invisibleHeap.peek(); top; top = this.invisibleHeap.peek()) {
      if (this.isCurrent(top)) return top.message.visibleAt;
      this.invisibleHeap.pop();
    }
    return undefined;
  }

  purge(): void {
    for (const message of this.messages.values()) message.generation += 1;
    this.messages.clear();
    this.visibleHeap.clear();
    this.invisibleHeap.clear();
    this.visibleCount = 0;
    this.journal?.append([{ op: 'purged' }]);
  }

  /**
   * Pauses or resumes the consumer, like `UpdateEventSourceMapping --enabled`: while paused,
   * messages stay in the queue (tests use it to stop the runtime with messages not yet handled).
   */
  setConsumerEnabled(enabled: boolean): void {
    this.consumer?.setEnabled(enabled);
  }

  /** Attaches a Lambda-style consumer (one per queue, like one event source mapping). */
  attachConsumer(handler: LocalSqsHandler, options: ConsumerOptions = {}): () => void {
    if (this.consumer) throw new Error(`queue ${this.name} already has a consumer`);
    const merged = { ...this.consumerDefaults, ...options };
    const consumer = new EventSourceMapping(this, handler, {
      batchSize: merged.batchSize ?? 10,
      batchingWindowMs: merged.batchingWindowMs ?? 0,
      maxConcurrency: merged.maxConcurrency ?? 2,
      functionName: merged.functionName ?? `${this.name}-consumer`,
      functionTimeoutMs: merged.functionTimeoutMs ?? this.options.functionTimeoutMs ?? 60_000,
    }, this.options.onError);
    this.consumer = consumer;
    consumer.schedule();
    return () => {
      consumer.stop();
      if (this.consumer === consumer) this.consumer = undefined;
    };
  }

  /** Graceful stop of the consumer: no new batch, and waits (at most `capMs`) for the running ones. True when none is left running. */
  async drain(capMs: number): Promise<boolean> {
    return this.consumer ? this.consumer.drain(capMs) : true;
  }

  /** Stops the consumer and closes the journal; batches still running are not waited for (call `drain` first; their messages are redelivered after a restart). */
  close(): void {
    this.closed = true;
    this.consumer?.stop();
    this.consumer = undefined;
    this.journal?.close();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  private store(journaled: JournaledMessage, now: number): StoredMessage {
    const message: StoredMessage = {
      ...journaled,
      md5OfBody: md5(journaled.body),
      visibleAt: now,
      inFlight: false,
      seq: this.nextSeq++,
      state: 'held',
      generation: 0,
    };
    this.messages.set(message.messageId, message);
    return message;
  }

  /** A message a killed run had received stays invisible until that run would have timed out (its idempotency record has expired by then). */
  private heldAfterRestartUntil(message: JournaledMessage): number {
    const timeout = this.options.functionTimeoutMs;
    return timeout !== undefined && message.lastReceiveAt !== undefined ? message.lastReceiveAt + timeout : 0;
  }

  private isCurrent(entry: HeapEntry): boolean {
    return entry.generation === entry.message.generation && this.messages.get(entry.message.messageId) === entry.message;
  }

  private leaveState(message: StoredMessage): void {
    if (message.state === 'visible') this.visibleCount -= 1;
    message.generation += 1;
  }

  /** Makes a message visible, or collects it for the DLQ once it has been received maxReceiveCount times. */
  private makeVisible(message: StoredMessage, exhausted: StoredMessage[]): void {
    this.leaveState(message);
    message.inFlight = false;
    const { maxReceiveCount, deadLetterQueue } = this.options;
    if (maxReceiveCount !== undefined && deadLetterQueue && !deadLetterQueue.closed && message.receiveCount >= maxReceiveCount) {
      message.state = 'held';
      exhausted.push(message);
      return;
    }
    message.state = 'visible';
    this.visibleCount += 1;
    this.visibleHeap.push({ message, generation: message.generation });
  }

  private makeInvisible(message: StoredMessage, visibleAt: number): void {
    this.leaveState(message);
    message.inFlight = false;
    message.state = 'invisible';
    message.visibleAt = visibleAt;
    this.invisibleHeap.push({ message, generation: message.generation });
  }

  private popVisible(): StoredMessage | undefined {
    for (let entry = this.visibleHeap.pop(); entry; entry = this.visibleHeap.pop()) {
      if (this.isCurrent(entry)) return entry.message;
    }
    return undefined;
  }

  /** Invisible messages whose visibility timeout is over become visible (or move to the DLQ). */
  private promoteDue(now: number): void {
    const exhausted: StoredMessage[] = [];
    for (let top = this.invisibleHeap.peek(); top && (!this.isCurrent(top) || top.message.visibleAt <= now); top = this.invisibleHeap.peek()) {
      this.invisibleHeap.pop();
      if (this.isCurrent(top)) this.makeVisible(top.message, exhausted);
    }
    this.moveToDeadLetterQueue(exhausted);
  }

  private moveToDeadLetterQueue(exhausted: readonly StoredMessage[]): void {
    if (exhausted.length === 0) return;
    // Journaled in the DLQ (synced) before it leaves this queue: a crash in between duplicates, never loses.
    this.deadLetterQueue!.sendBatch(exhausted.map((message) => message.body));
    this.options.onDeadLetter?.({
      queue: this.name,
      deadLetterQueue: this.deadLetterQueue!.name,
      messageIds: exhausted.map((message) => message.messageId),
      reason: `received ${this.options.maxReceiveCount} times (maxReceiveCount) without being deleted: every attempt failed or timed out`,
    });
    this.removeAll(
      exhausted.map((message) => message.messageId),
      'dlq',
    );
  }

  /** Removes messages (deleted, or moved to the DLQ), journaled with one write. */
  private removeAll(messageIds: readonly string[], op: 'deleted' | 'dlq'): void {
    for (const messageId of messageIds) {
      const message = this.messages.get(messageId);
      if (!message) continue;
      this.leaveState(message);
      this.messages.delete(messageId);
      this.drained += 1;
    }
    if (!this.journal || messageIds.length === 0) return;
    this.journal.append(messageIds.map((id): JournalRecord => ({ op, id })));
    this.journal.compactIfLarge(() => this.messages.values(), this.messages.size);
  }
}
