/**
 * The client SDK's store as part of the inbox view (issue 25, case 9): the real sync engine on one
 * of the user's connections, its requests answered and pushes delivered in every order among the
 * generated arrivals and actions; settled, its badge equals the server's counts and its list the
 * model's. Short run in `npm test`, long in `npm run test:model`; replay with FC_SEED.
 */
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { modelParameters } from '../support/model-runs.js';
import { ClientSettle, ClientStep, clientRunArbitraries, Deliver, PublishOwn, setupRun, settleAndCompareClient, type FollowShape, type ModelState, type RealState } from './inbox-view/commands.js';
import { memoryBackend } from './inbox-view/memory-ports.js';

let run = 0;
describe('the client store on the inbox view equals the model once settled', () => {
  it('after generated sequences of arrivals, actions, answers and pushes in any order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<FollowShape>(0, 2),
        fc.commands(clientRunArbitraries(), { maxCommands: 50 }),
        async (follows, commands) => {
          const setup = await setupRun(memoryBackend(), { follows, fullChecks: false, client: true }, (run += 1));
          await fc.asyncModelRun(() => setup, commands);
          await settleAndCompareClient(setup.model, setup.real);
        },
      ),
      modelParameters(200, 10_000),
    );
  }, 600_000);
});

/** Issue case 9 as shrunk sequences: the client started at the beginning, its first page and counts answered among the arrivals. */
const CASE_9: { name: string; commands: fc.AsyncCommand<ModelState, RealState>[] }[] = [
  {
    name: 'issue case 9: a counts answer that includes an item, then that item\'s push: counted once',
    commands: [new ClientStep('serve', 0), new ClientStep('answer', 0), new PublishOwn(0, 0, false), new ClientStep('serve', 0), new ClientStep('answer', 0), new Deliver(), new ClientSettle()],
  },
  {
    name: 'issue case 9: 4 events published during the first load: the badge equals the server\'s count',
    commands: [
      new ClientStep('serve', 0),
      new PublishOwn(0, 0, false),
      new PublishOwn(1, 1, false),
      new ClientStep('answer', 0),
      new PublishOwn(0, 2, false),
      new ClientStep('serve', 0),
      new PublishOwn(1, 3, false),
      new Deliver(),
      new ClientStep('answer', 0),
      new ClientSettle(),
    ],
  },
];

describe('the client store: issue case 9', () => {
  for (const { name, commands } of CASE_9) {
    it(name, async () => {
      const setup = await setupRun(memoryBackend(), { follows: 0, fullChecks: false, client: true }, (run += 1));
      await fc.asyncModelRun(() => setup, commands);
    });
  }
});
