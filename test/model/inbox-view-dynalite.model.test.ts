/**
 * The inbox view against its reference model (issue 25), on dynalite: the real core over the
 * DynamoDB adapters. Short run in `npm test`, long in `npm run test:model`; replay with FC_SEED.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { modelParameters, modelRuns } from '../support/model-runs.js';
import { DynaliteServer } from './inbox-view/backend.js';
import { commandArbitraries, compareAllViews, setupRun, type FollowShape } from './inbox-view/commands.js';

let server: DynaliteServer;
beforeAll(async () => {
  server = await DynaliteServer.start();
});
afterAll(async () => server?.close());

let run = 0;
/** Runs on one dynalite: every run writes its own users, never cleared, so a long run starts a new one every so often (memory). */
const RUNS_PER_SERVER = 500;
let runsOnServer = 0;
describe('the inbox view on dynalite equals the model', () => {
  it('after every step of generated sequences', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom<FollowShape>(0, 2, 101), fc.commands(commandArbitraries, { maxCommands: 50 }), async (follows, commands) => {
        if (runsOnServer >= RUNS_PER_SERVER) {
          await server.close();
          server = await DynaliteServer.start();
          runsOnServer = 0;
        }
        runsOnServer += 1;
        const setup = await setupRun(server.backend(), { follows, fullChecks: false }, (run += 1));
        await fc.asyncModelRun(() => setup, commands);
        await compareAllViews(setup.model, setup.real);
      }),
      modelParameters(200, 10_000),
    );
  }, modelRuns(600_000, 6 * 3_600_000));
});
