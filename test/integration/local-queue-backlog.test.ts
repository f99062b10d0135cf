/**
 * A durable local queue restarts with a big backlog and drains it exactly once (issue 14 J: the
 * runtime used to crash at ~122,000 queued messages and never start again on that DATA_DIR). The
 * 500,000-message version runs in `npm run test:chaos` (test/chaos/queue-backlog-500k.test.ts).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { queueCloseReopenDrain } from '../support/queue-backlog.js';

const MESSAGES = 50_000;
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'queue-backlog-'));
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
  }, 120_000);
});
