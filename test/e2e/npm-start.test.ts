/**
 * The real `npm start` as a child process: endpoints printed and written, `npm run token` accepted,
 * and a restart on the same DATA_DIR keeps the data (inbox items and the read mark).
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../src/adapters/dynamo/document-client.js';
import { InboxRepository } from '../../src/adapters/dynamo/inbox-repository.js';
import type { Notification } from '../../src/core/model/notification.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION, startEmbeddedDynamo } from '../../src/local/embedded-dynamo.js';
import { aNotification, alice, inboxItemsFor, SECOND } from '../support/fixtures.js';
import { call, freePort } from '../support/http.js';

const repoRoot = join(import.meta.dirname, '..', '..');
const run = promisify(execFile);
const children: ChildProcess[] = [];
let dataDir: string | undefined;

/** Starts `npm start` in its own process group and resolves once it says it is up. */
async function startRuntime(env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  const child = spawn('npm', ['start', '--silent'], { cwd: repoRoot, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start did not come up:\n${output}`)), 45_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('local runtime is up')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => void (output += chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited with ${code}:\n${output}`));
    });
  });
  return child;
}

/** SIGTERM to the child's process group (npm, tsx, node), then waits for it to exit. */
async function stopRuntime(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  process.kill(-child.pid, 'SIGTERM');
  await exited;
}

afterAll(async () => {
  for (const child of children) await stopRuntime(child).catch(() => undefined);
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('npm start', () => {
  it('serves the REST API, accepts `npm run token`, and keeps data and the read mark across a restart', async () => {
    // Prepare
    dataDir = await mkdtemp(join(tmpdir(), 'notifications-start-'));
    const port = await freePort();
    const env = { ...process.env, PORT: String(port), WS_PORT: String(await freePort()), DATA_DIR: dataDir };

    // Act 1: first start, a token from the CLI, mark all read.
    let child = await startRuntime(env);
    const endpoints = JSON.parse(await readFile(join(repoRoot, '.local', 'endpoints.json'), 'utf8')) as { http: string; ws: string; events: string; eventBusName: string };
    const { stdout } = await run('npm', ['run', '--silent', 'token', '--', '--tenant', alice.tenantId, '--user', alice.userId], { cwd: repoRoot, env });
    const token = stdout.trim();
    const firstList = await call(endpoints.http, 'GET', '/notifications', { token });
    const readAll = await call(endpoints.http, 'POST', '/notifications/read-all', { token });
    const readAt = Date.parse((readAll.body as { readAt: string }).readAt);
    await stopRuntime(child);

    // Seed while stopped: three notifications from before the mark, two from after it (a few ms after:
    // an id above "now" has not arrived yet, and counts rightly leave it out).
    const dynamo = await startEmbeddedDynamo({ path: join(dataDir, 'dynamodb') });
    const client = createDocumentClient({ endpoint: dynamo.endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
    const beforeMark = [1, 2, 3].map((i) => aNotification(readAt - i * SECOND, { eventId: `before-${i}` }));
    const afterMark = [1, 2].map((i) => aNotification(readAt + i, { eventId: `after-${i}` }));
    await new InboxRepository(client, dynamo.tableNames.inbox).writeInboxItems(inboxItemsFor(alice, [...beforeMark, ...afterMark]));
    client.destroy();
    await dynamo.close();

    // Act 2: restart on the same data directory, same token.
    child = await startRuntime(env);
    const list = await call(endpoints.http, 'GET', '/notifications', { token });
    const counts = await call(endpoints.http, 'GET', '/notifications/counts', { token });
    await stopRuntime(child);

    // Assess
    expect(endpoints).toEqual({ http: `http://127.0.0.1:${port}`, ws: `ws://127.0.0.1:${env.WS_PORT}`, events: `http://127.0.0.1:${port}`, eventBusName: 'notifications' });
    expect(firstList).toMatchObject({ status: 200, body: { items: [], nextCursor: null } });
    expect(readAll.status).toBe(200);
    expect(list.status).toBe(200);
    const items = (list.body as { items: Notification[] }).items;
    expect(items.map((item) => [item.id, item.read])).toEqual([
      ...afterMark.reverse().map((item) => [item.id, false]),
      ...beforeMark.map((item) => [item.id, true]),
    ]);
    expect(counts.body).toEqual({ unread: 2, unseen: 2, capped: false });
  }, 120_000);
});
