/** The shrunk sequences of every divergence the inbox-view model found (issue 25), on both backends. */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { DynaliteServer } from './inbox-view/backend.js';
import { setupRun } from './inbox-view/commands.js';
import { memoryBackend } from './inbox-view/memory-ports.js';
import { REGRESSIONS } from './inbox-view/regressions.js';

let server: DynaliteServer;
beforeAll(async () => {
  server = await DynaliteServer.start();
});
afterAll(async () => server?.close());

let run = 0;
describe.each([
  ['the core with in-memory ports', () => memoryBackend()],
  ['dynalite', () => server.backend()],
])('inbox-view regressions on %s', (_name, backend) => {
  for (const { name, follows, commands } of REGRESSIONS) {
    it(name, async () => {
      const setup = await setupRun(backend(), { follows, fullChecks: true }, (run += 1));
      await fc.asyncModelRun(() => setup, commands);
    });
  }
});
