/**
 * The follow graph against its reference model (issue 26): generated follows, unfollows and posts of
 * four users, processed in any order the independent queues allow (the three intake queues and the
 * promotion queue), with duplicate publishes, redeliveries, kills between any two DynamoDB requests
 * of a step and two steps interleaved request by request, through the real fan-out and promotion
 * handlers on dynalite. After every processing step each user's page, `since` and counts are
 * compared with the model; at the end, after the queues drain, the follower counts, tiers, packs
 * and the trace too. The model and the comparisons: `follow-graph/`.
 *
 * `npm test` runs 200 sequences of up to 60 steps; `npm run test:model` 5,000. A failure prints the
 * shrunk sequence (step by step, with what each step did), the seed, the path and the commands'
 * replayPath: FC_SEED=<seed> FC_PATH=<path> FC_REPLAY_PATH=<replayPath> replays it.
 */
import fc from 'fast-check';
import { beforeAll, describe, it } from 'vitest';
import { localTableNames } from '../../src/local/embedded-dynamo.js';
import { startInProcessDynamo, type InProcessDynamo } from '../support/in-process-dynamo.js';
import { modelParameters, modelRuns } from '../support/model-runs.js';
import { sequences, USERS } from './follow-graph/commands.js';
import { SequenceRun } from './follow-graph/harness.js';

let dynamo: InProcessDynamo;
const tables = localTableNames('follow-model-');
/** Sequences on one store: each writes its own tenant, never cleared, so a long run starts a new store every so often (memory). */
const SEQUENCES_PER_STORE = 200;
let sequencesOnStore = 0;

async function freshStore(): Promise<void> {
  dynamo = startInProcessDynamo();
  await dynamo.createTables(tables);
  sequencesOnStore = 0;
}

beforeAll(freshStore);

describe('follow graph (model): every follower sees every post made after they followed, whatever order the queues run in', () => {
  it('matches the reference model after every step of generated sequences', { timeout: modelRuns(1_800_000, 6 * 3_600_000) }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(2, 3), sequences(60), async (celebrityThreshold, commands) => {
        if (sequencesOnStore >= SEQUENCES_PER_STORE) await freshStore();
        sequencesOnStore += 1;
        const run = new SequenceRun({ dynamo, tables, users: USERS, celebrityThreshold });
        const started = performance.now();
        try {
          await fc.asyncModelRun(() => ({ model: run, real: run }), commands);
          await run.drain();
        } finally {
          run.system.destroy();
          if (process.env.FOLLOW_STATS) process.stdout.write(`sequence: ${run.log.length} log lines, ${run.system.requests} requests (${Math.round(run.system.requestMs)} ms in them), ${Math.round(performance.now() - started)} ms\n`);
        }
      }),
      modelParameters(Number(process.env.FOLLOW_RUNS ?? 200), 5_000),
    );
  });
});
