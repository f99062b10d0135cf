/**
 * Group commit of the local queue journal (src/local/sqs/queue-journal.ts): sends made while a sync
 * runs share the next fdatasync, each send is answered only after a sync that started after its
 * write, and a compaction or a close in the middle answers every waiting send with its message kept.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { COMPACT_MIN_RECORDS, QueueJournal } from '../../src/local/sqs/queue-journal.js';
import { LocalQueue } from '../../src/local/sqs/index.js';

let dir: string;
const open: LocalQueue[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'group-commit-'));
});

afterEach(async () => {
  for (const queue of open.splice(0)) queue.close();
  await rm(dir, { recursive: true, force: true });
});

function openQueue(name = 'Grouped'): LocalQueue {
  const queue = new LocalQueue({ name, baseUrl: 'http://127.0.0.1:0', region: 'us-east-1', visibilityTimeoutMs: 1_000, journalDir: dir });
  open.push(queue);
  return queue;
}

describe('When many sends arrive while a sync runs', () => {
  it('answers 50 concurrent calls with 2 fdatasyncs (the running one and one for everyone who waited), every message kept', async () => {
    // Prepare
    const queue = openQueue();
    // Act: 50 calls in one tick (as 50 concurrent SendMessageBatch requests)
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => queue.sendBatchDurable([`m${i}`, `n${i}`])));
    // Assess
    expect(answers.flat()).toHaveLength(100);
    expect(queue.journalSyncs).toBe(2);
    queue.close();
    open.splice(0);
    const reopened = openQueue();
    expect(reopened.size).toBe(100);
  });

  it('answers a send only after a sync that started after its write', async () => {
    // Prepare
    const { journal } = QueueJournal.open(dir, 'Direct');
    let answered = false;
    // Act
    const first = journal.appendDurable([{ op: 'sent', id: 'a', body: 'a', sentAt: 1 }]).then(() => (answered = true));
    // Assess: written now, not yet synced, not yet answered
    expect(readFileSync(join(dir, 'Direct.jsonl'), 'utf8')).toContain('"id":"a"');
    expect(journal.syncCount).toBe(0);
    expect(answered).toBe(false);
    // A second write while the first sync runs waits for a second sync
    const second = journal.appendDurable([{ op: 'sent', id: 'b', body: 'b', sentAt: 2 }]);
    await first;
    expect(journal.syncCount).toBe(1);
    await second;
    expect(journal.syncCount).toBe(2);
    journal.close();
  });

  it('answers the sends waiting for a sync when the queue closes, and keeps them', async () => {
    // Prepare
    const queue = openQueue();
    // Act: the first call's sync runs; the second waits for the next one; the close syncs it
    const first = queue.sendBatchDurable(['one']);
    const second = queue.sendBatchDurable(['two']);
    queue.close();
    open.splice(0);
    // Assess
    await expect(Promise.all([first, second])).resolves.toHaveLength(2);
    expect(openQueue().peek().map((message) => message.body)).toEqual(['one', 'two']);
  });

  it('keeps a waiting send through a compaction that replaces the journal file', async () => {
    // Prepare: enough handled records that the next delete compacts
    const queue = openQueue();
    await queue.sendBatchDurable(Array.from({ length: COMPACT_MIN_RECORDS }, (_, i) => `old${i}`));
    const handled = queue.receive(COMPACT_MIN_RECORDS, 1_000, false);
    // Act: a send waits for its sync while the deletes compact the journal under it
    const pending = queue.sendBatchDurable(['kept']);
    for (const message of handled) queue.delete(message.receiptHandle!);
    // Assess
    await expect(pending).resolves.toHaveLength(1);
    queue.close();
    open.splice(0);
    expect(openQueue().peek().map((message) => message.body)).toEqual(['kept']);
  });
});
