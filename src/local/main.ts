/** `npm start`: runs the whole system locally, prints the endpoints and writes .local/endpoints.json. */
import { mkdir, writeFile } from 'node:fs/promises';
import { startLocalRuntime } from './runtime.js';
import { localSettingsFromEnv } from './settings.js';

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
    `  token             npm run --silent token -- --tenant acme --user alice`,
    'endpoints written to .local/endpoints.json; Ctrl+C stops',
    '',
  ].join('\n'),
);

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    void runtime.close().then(() => process.exit(0));
  });
}
