/**
 * Shrunk sequences the follow-graph model found (`follow-graph.model.test.ts`), replayed by name
 * through the same harness, so each stays fixed whatever the generator draws.
 */
import { beforeAll, describe, it } from 'vitest';
import { localTableNames } from '../../src/local/embedded-dynamo.js';
import { startInProcessDynamo, type InProcessDynamo } from '../support/in-process-dynamo.js';
import { USERS } from './follow-graph/commands.js';
import { SequenceRun } from './follow-graph/harness.js';

let dynamo: InProcessDynamo;
const tables = localTableNames('follow-regressions-');

beforeAll(async () => {
  dynamo = startInProcessDynamo();
  await dynamo.createTables(tables);
});

async function replay(celebrityThreshold: number, steps: (run: SequenceRun) => Promise<void>): Promise<void> {
  const run = new SequenceRun({ dynamo, tables, users: USERS, celebrityThreshold });
  try {
    await steps(run);
    await run.drain();
  } finally {
    run.system.destroy();
  }
}

const next = (run: SequenceRun, killAt?: number) => run.process([{ message: run.system.queue[0]!, ...(killAt !== undefined ? { killAt } : {}) }], 0);

describe('follow graph (model): found sequences', () => {
  // Three celebrity posts in one millisecond; the third is killed after its feed items, before its
  // head write. A page queried the feed and showed it; `since` skipped the feed (head not above it).
  it('a celebrity post killed between its feed items and its head write: page and since agree', { timeout: 60_000 }, async () => {
    // Which of two ids in one millisecond sorts higher depends on the tenant id (random per run): several runs.
    // The 4th request of that post's processing is its feed write (kill@4: after it, before the head).
    const killAt = 4;
    for (let attempt = 0; attempt < 12; attempt += 1) {
      await replay(2, async (run) => {
        run.publish('follow', 'cy', 'ann', 0);
        run.publish('follow', 'bob', 'ann', 0);
        for (let step = 0; step < 3; step += 1) await next(run);
        for (const last of [false, false, true]) {
          run.publish('post', 'ann', undefined, 0);
          await next(run, last ? killAt : undefined);
        }
      });
    }
  });
});
