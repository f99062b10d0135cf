/**
 * The inbox view against its reference model (issue 25), on dynalite: the real core over the
 * DynamoDB adapters. Short run in `npm test`, long in `npm run test:model`; replay with FC_SEED.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { modelParameters } from '../support/model-runs.js';
import { DynaliteServer } from './inbox-view/backend.js';
import { commandArbitraries, compareAllViews, setupRun, type FollowShape } from './inbox-view/commands.js';

let server: DynaliteServer;
beforeAll(async () => {
  server = await DynaliteServer.start();
});
afterAll(async () => server?.close());

let run = 0;
describe('the inbox view on dynalite equals the model', () => {
  it('after every step of generated sequences', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom<FollowShape>(0, 2, 101), fc.commands(commandArbitraries, { maxCommands: 50 }), async (follows, commands) => {
        const setup = await setupRun(server.backend(), { follows, fullChecks: false }, (run += 1));
        await fc.asyncModelRun(() => setup, commands);
        await compareAllViews(setup.model, setup.real);
      }),
      modelParameters(200, 10_000),
    );
  }, 600_000);
});
