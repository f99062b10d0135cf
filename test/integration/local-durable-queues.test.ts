/**
 * Durable local queues (src/local/queue-journal.ts): a queue opened on a journal directory keeps
 * every accepted message across a close and reopen, with its receive count, and shrugs off a
 * journal whose last line was cut short by a crash.
 */
import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SQSEvent } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { COMPACT_MIN_RECORDS } from '../../src/local/sqs/queue-journal.js';
import { LocalQueue, QueueClosedError } from '../../src/local/sqs/index.js';
import { pollUntil } from '../support/poll-until.js';

const VISIBILITY_MS = 60;
const MAX_RECEIVES = 3;
const poll = { attempts: 100, intervalMs: 20 };

let dir: string;
const open: LocalQueue[] = [];
let errors: unknown[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'durable-queues-'));
  errors = [];
});

afterEach(async () => {
  for (const queue of open.splice(0)) queue.close();
  await rm(dir, { recursive: true, force: true });
});

/** Opens the queue pair on the test's journal directory (a "runtime start"). */
function openQueues(): { queue: LocalQueue; dlq: LocalQueue } {
  const common = { baseUrl: 'http://127.0.0.1:0', region: 'us-east-1', visibilityTimeoutMs: VISIBILITY_MS, journalDir: dir, onError: (error: unknown) => errors.push(error) };
  const dlq = new LocalQueue({ ...common, name: 'Durable-dlq' });
  const queue = new LocalQueue({ ...common, name: 'Durable', maxReceiveCount: MAX_RECEIVES, deadLetterQueue: dlq });
  open.push(queue, dlq);
  return { queue, dlq };
}

/** Closes the queue pair (a "runtime stop"). */
function closeQueues(): void {
  for (const queue of open.splice(0)) queue.close();
}

const bodiesOf = (queue: LocalQueue) => queue.peek().map((message) => message.body);

/** Attaches a consumer that records each event and answers with `failing` bodies reported failed. */
function consume(queue: LocalQueue, failing: readonly string[] = []): SQSEvent[] {
  const events: SQSEvent[] = [];
  queue.attachConsumer(
    async (event) => {
      events.push(event);
      return { batchItemFailures: event.Records.filter((record) => failing.includes(record.body)).map((record) => ({ itemIdentifier: record.messageId })) };
    },
    { batchSize: 10, maxConcurrency: 1 },
  );
  return events;
}

describe('A durable local queue', () => {
  it('delivers a message sent before a close, once consumed after reopening on the same directory', async () => {
    // Prepare
    openQueues().queue.send('accepted before the stop');
    closeQueues();

    // Act
    const { queue } = openQueues();
    const events = consume(queue);

    // Assess
    await pollUntil(() => queue.peek().length === 0 && events.length > 0, poll, 'message consumed after reopening');
    expect(events.flatMap((event) => event.Records.map((record) => record.body))).toEqual(['accepted before the stop']);
    expect(events[0]?.Records[0]?.attributes.ApproximateReceiveCount).toBe('1');
  });

  it('does not redeliver a message deleted before the close', async () => {
    // Prepare
    const first = openQueues();
    const handled = consume(first.queue);
    first.queue.send('handled');
    await pollUntil(() => first.queue.peek().length === 0 && handled.length === 1, poll, 'message deleted');
    closeQueues();

    // Act
    const { queue } = openQueues();
    const events = consume(queue);
    queue.send('after the restart');

    // Assess
    await pollUntil(() => queue.peek().length === 0 && events.length > 0, poll, 'new message consumed');
    expect(events.flatMap((event) => event.Records.map((record) => record.body))).toEqual(['after the restart']);
  });

  it('keeps receive counts, so a poison message moves to the DLQ after maxReceiveCount receives across a restart', async () => {
    // Prepare: two receives before the stop, the second still in flight (a long visibility timeout) when it stops
    const first = openQueues();
    first.queue.send('poison');
    first.queue.send('fine');
    expect(first.queue.receive(1, 0).map((message) => message.body)).toEqual(['poison']);
    expect(first.queue.receive(1, 60_000).map((message) => message.body)).toEqual(['poison']);
    closeQueues();

    // Act
    const { queue, dlq } = openQueues();
    expect(queue.peek().map((message) => [message.body, message.receiveCount])).toEqual([
      ['poison', 2],
      ['fine', 0],
    ]);
    const events = consume(queue, ['poison']);

    // Assess: the in-flight message is visible again, received a third time, then moved to the DLQ
    await pollUntil(() => dlq.peek().length === 1 && queue.peek().length === 0, poll, 'poison in the DLQ');
    const poisonReceives = events.flatMap((event) => event.Records.filter((record) => record.body === 'poison').map((record) => record.attributes.ApproximateReceiveCount));
    expect(poisonReceives).toEqual(['3']);
    expect(bodiesOf(dlq)).toEqual(['poison']);
    closeQueues();
    const reopened = openQueues();
    expect(bodiesOf(reopened.dlq)).toEqual(['poison']);
    expect(bodiesOf(reopened.queue)).toEqual([]);
  });

  it('ignores a torn last journal line (a crash mid-write) and keeps appending after it', async () => {
    // Prepare
    const first = openQueues();
    first.queue.send('a');
    first.queue.send('b');
    closeQueues();
    await appendFile(join(dir, 'Durable.jsonl'), '{"op":"sent","id":"torn","bo');

    // Act
    const second = openQueues();
    second.queue.send('c');
    closeQueues();
    const { queue } = openQueues();

    // Assess
    expect(bodiesOf(queue)).toEqual(['a', 'b', 'c']);
    expect(errors).toEqual([]);
  });

  it('skips an unreadable line inside the journal and reports it, keeping the other messages', async () => {
    // Prepare
    openQueues().queue.send('a');
    closeQueues();
    await appendFile(join(dir, 'Durable.jsonl'), 'not json\n');
    const second = openQueues();
    second.queue.send('b');
    closeQueues();
    await appendFile(join(dir, 'Durable.jsonl'), 'garbage\n{"op":"deleted"}\n');

    // Act
    const { queue } = openQueues();

    // Assess
    expect(bodiesOf(queue)).toEqual(['a', 'b']);
    expect(errors.map((error) => String(error))).toEqual([expect.stringContaining('1 unreadable journal line(s)'), expect.stringContaining('2 unreadable journal line(s)')]);
  });

  it('compacts its journal once handled records far outnumber the live messages', async () => {
    // Prepare
    const { queue } = openQueues();
    queue.send('still queued');
    queue.receive(1, 60_000);

    // Act: many messages sent, received and deleted one by one
    for (let i = 0; i < COMPACT_MIN_RECORDS; i += 1) {
      queue.send(`m${i}`);
      const [message] = queue.receive(1);
      queue.delete(message!.receiptHandle!);
    }

    // Assess: about 3 * COMPACT_MIN_RECORDS records were appended; the journal never holds more than the threshold after a delete
    const lines = (await readFile(join(dir, 'Durable.jsonl'), 'utf8')).split('\n').filter(Boolean);
    expect(lines.length).toBeLessThanOrEqual(COMPACT_MIN_RECORDS);
    closeQueues();
    expect(openQueues().queue.peek().map((message) => [message.body, message.receiveCount])).toEqual([['still queued', 1]]);
  });

  it('refuses a send once closed instead of accepting a message it cannot keep', () => {
    // Prepare
    const { queue } = openQueues();
    closeQueues();

    // Act
    const send = () => queue.send('too late');

    // Assess
    expect(send).toThrow(QueueClosedError);
  });
});

describe('A local queue without a journal directory', () => {
  it('stays in memory: nothing of it survives a new queue of the same name', () => {
    // Prepare
    const common = { name: 'Memory', baseUrl: 'http://127.0.0.1:0', region: 'us-east-1', visibilityTimeoutMs: VISIBILITY_MS };
    const first = new LocalQueue(common);
    first.send('kept in memory only');
    first.close();

    // Act
    const second = new LocalQueue(common);
    open.push(second);

    // Assess
    expect(second.peek()).toEqual([]);
  });
});

describe('A durable local queue with a function timeout', () => {
  it('holds a message a killed run had received until that run would have timed out, then redelivers it', async () => {
    // Prepare
    const common = { name: 'Timed', baseUrl: 'http://127.0.0.1:0', region: 'us-east-1', visibilityTimeoutMs: 6 * 300, functionTimeoutMs: 300, journalDir: dir };
    const first = new LocalQueue(common);
    first.send('in flight when killed');
    first.send('never received');
    first.receive(1, 60_000, true);
    const receivedAt = Date.now();
    first.close();

    // Act
    const second = new LocalQueue(common);
    open.push(second);
    const seen: Array<{ body: string; at: number }> = [];
    second.attachConsumer(async (event) => {
      for (const record of event.Records) seen.push({ body: record.body, at: Date.now() });
    });

    // Assess
    await pollUntil(() => seen.length === 2, poll, 'both delivered');
    expect(seen[0]!.body).toBe('never received');
    expect(seen[1]!.body).toBe('in flight when killed');
    expect(seen[1]!.at - receivedAt).toBeGreaterThanOrEqual(290);
  });
});
