/**
 * The inbox view against its reference model (issue 25), on the core with in-memory ports: every
 * view compared after every step. Short run in `npm test`, long in `npm run test:model`; replay with FC_SEED.
 */
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { modelParameters } from '../support/model-runs.js';
import { commandArbitraries, setupRun, type FollowShape } from './inbox-view/commands.js';
import { memoryBackend } from './inbox-view/memory-ports.js';

let run = 0;
describe('the inbox view on the core with in-memory ports equals the model', () => {
  it('after every step of generated sequences', async () => {
    await fc.assert(
      // Medium size: sequences up to 50 steps (small ones stop at about 10, too short to snooze, retract and outlive a TTL in one run).
      fc.asyncProperty(fc.constantFrom<FollowShape>(0, 2, 101), fc.commands(commandArbitraries, { maxCommands: 50, size: 'medium' }), async (follows, commands) => {
        const setup = await setupRun(memoryBackend(), { follows, fullChecks: true }, (run += 1));
        await fc.asyncModelRun(() => setup, commands);
      }),
      modelParameters(200, 10_000),
    );
  }, 1_800_000);
});
