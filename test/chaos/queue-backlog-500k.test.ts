/** Issue 14 J at full size: 500,000 messages queued, the queue closed and reopened, all drained exactly once. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { queueCloseReopenDrain } from '../support/queue-backlog.js';

const MESSAGES = 500_000;
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'queue-backlog-500k-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe(`When a durable local queue is closed with ${MESSAGES} messages queued`, () => {
  it('reopens on the same journal and drains every message exactly once', async () => {
    // Act
    const run = await queueCloseReopenDrain(dir, MESSAGES);

    // Assess
    expect(run.duplicates).toBe(0);
    expect(run.handledCounts.every((times) => times === 1)).toBe(true);
    process.stdout.write(`500k backlog: send ${run.sendMs} ms, reopen ${run.reopenMs} ms, drain ${run.drainMs} ms\n`);
  }, 600_000);
});
