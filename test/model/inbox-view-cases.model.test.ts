/** The shrunk sequences of every divergence the inbox-view model found (issue 25), on both backends. */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { DynaliteServer } from './inbox-view/backend.js';
import { setupRun } from './inbox-view/commands.js';
import { REGRESSIONS } from './inbox-view/regressions.js';

let server: DynaliteServer;
beforeAll(async () => {
  server = await DynaliteServer.start();
});
afterAll(async () => server?.close());

let run = 0;
describe('inbox-view regressions on dynalite', () => {
  for (const { name, follows, commands } of REGRESSIONS) {
    it(name, async () => {
      const setup = await setupRun(server.backend(), { follows, fullChecks: true }, (run += 1));
      await fc.asyncModelRun(() => setup, commands);
    });
  }
});
