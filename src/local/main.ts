/** `npm start`: runs the whole system locally, prints the endpoints and writes .local/endpoints.json. */
import { mkdir, writeFile } from 'node:fs/promises';
import { startLocalRuntime } from './runtime.js';
import { LOCAL_FUNCTION_TIMEOUT_MS_DEFAULT, localSettingsFromEnv } from './settings.js';

const settings = localSettingsFromEnv();
const runtime = await startLocalRuntime(settings);
await mkdir('.local', { recursive: true });
await writeFile('.local/endpoints.json', `${JSON.stringify(runtime.endpoints, null, 2)}\n`);

process.stdout.write(
  [
    'serverless-notifications local runtime is up',
    `  REST + PutEvents  ${runtime.endpoints.http}`,
    `  WebSocket         ${runtime.endpoints.ws}`,
    `  event bus         ${runtime.endpoints.eventBusName}`,
    `  data              ${settings.dataDir}`,
    `  audit trail       ${runtime.audit.archive.file}  (npm run audit -- verify | why)`,
    `  token             npm run --silent token -- --tenant acme --user alice`,
    'endpoints written to .local/endpoints.json; Ctrl+C stops',
    '',
  ].join('\n'),
);

// Graceful stop: running batches finish (at most one function timeout, a batch's own limit) before
// the queues close; what is still running then is redelivered after a restart (at-least-once).
const drainCapMs = settings.functionTimeoutMs ?? LOCAL_FUNCTION_TIMEOUT_MS_DEFAULT;
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) {
      process.stderr.write('stopping now; unfinished batches are redelivered after a restart\n');
      process.exit(130);
    }
    stopping = true;
    process.stderr.write(`stopping: waiting up to ${drainCapMs} ms for running batches (${signal} again stops now)\n`);
    void (async () => {
      const drained = await runtime.queues.registry.drainAll(drainCapMs);
      if (!drained) process.stderr.write('some batches were still running; their messages are redelivered after a restart\n');
      await runtime.close();
      process.exit(0);
    })();
  });
}
