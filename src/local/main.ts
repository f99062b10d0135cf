/** `npm start`: runs the whole system locally, prints the endpoints and writes .local/endpoints.json. */
import { mkdir, writeFile } from 'node:fs/promises';
import { clearRunningRuntime, writeRunningRuntime } from './running-runtime.js';
import { startLocalRuntime } from './runtime.js';
import { LOCAL_FUNCTION_TIMEOUT_MS_DEFAULT, localSettingsFromEnv } from './settings.js';

const settings = localSettingsFromEnv();
const runtime = await startLocalRuntime(settings);
await mkdir('.local', { recursive: true });
await writeFile('.local/endpoints.json', `${JSON.stringify(runtime.endpoints, null, 2)}\n`);
// Where `npm run token` finds this runtime's signing key (DATA_DIR), while it runs.
await writeRunningRuntime({ pid: process.pid, dataDir: settings.dataDir, http: runtime.endpoints.http, ws: runtime.endpoints.ws });

process.stdout.write(
  [
    'serverless-notifications local runtime is up',
    `  REST + PutEvents  ${runtime.endpoints.http}`,
    `  WebSocket         ${runtime.endpoints.ws}`,
    `  event bus         ${runtime.endpoints.eventBusName}`,
    `  data              ${settings.dataDir}`,
    ...(settings.catalogEntry ? [`  catalog           ${settings.catalogEntry}`] : []),
    `  audit trail       ${runtime.audit.archive.file}  (npm run audit -- verify | why)`,
    `  functions         ${runtime.functionsFrom === 'sources' ? 'the sources' : `the deployed bundles of ${runtime.functionsFrom}`}`,
    `  token             npm run --silent token -- --tenant acme --user alice`,
    'endpoints written to .local/endpoints.json; Ctrl+C stops',
    '',
  ].join('\n'),
);

// Graceful stop: running batches finish (at most one function timeout, a batch's own limit) before
// the queues close; what is still running then is redelivered after a restart (at-least-once).
const drainCapMs = settings.functionTimeoutMs ?? LOCAL_FUNCTION_TIMEOUT_MS_DEFAULT;
let stopping = false;

function stop(reason: string): void {
  if (stopping) {
    process.stderr.write('stopping now; unfinished batches are redelivered after a restart\n');
    process.exit(130);
  }
  stopping = true;
  process.stderr.write(`stopping (${reason}): waiting up to ${drainCapMs} ms for running batches (signal again stops now)\n`);
  void (async () => {
    const drained = await runtime.queues.registry.drainAll(drainCapMs);
    if (!drained) process.stderr.write('some batches were still running; their messages are redelivered after a restart\n');
    await runtime.close();
    await clearRunningRuntime(process.pid);
    process.exit(0);
  })();
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => stop(signal));

// `kill <pid of npm start>` ends npm without a signal to this process: when the command that
// started the runtime is gone (this process was handed to another parent), stop as on SIGTERM.
const startedBy = process.ppid;
setInterval(() => {
  if (process.ppid !== startedBy && !stopping) stop(`its parent process ${startedBy} exited`);
}, 500).unref();
