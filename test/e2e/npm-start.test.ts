/**
 * The real `npm start` as a child process: endpoints printed and written, `npm run token` accepted,
 * and a restart on the same DATA_DIR keeps the data (inbox items and the read mark). Then a team's
 * own type end to end (issue 30): `npm start` with CATALOG_ENTRY (examples/team-catalog, the module
 * a team gives the construct as `catalogEntry`), an event published with the typed producer typed
 * by that catalog, the notification in the inbox and on the socket with the type's links; the demo
 * page's catalog and the events schema list the team's types; `kill <pid of npm start>` (npm only,
 * not its group) stops the runtime and frees its ports. One file, so two runtimes never write the
 * repository's .local/ files at once.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { afterAll, describe, expect, it } from 'vitest';
import type { catalog as teamCatalog } from '../../examples/team-catalog/notifications/index.js';
import { createDocumentClient } from '../../src/adapters/dynamo/document-client.js';
import { InboxRepository } from '../../src/adapters/dynamo/inbox-repository.js';
import type { Notification } from '../../src/core/model/notification.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION, startEmbeddedDynamo } from '../../src/local/embedded-dynamo.js';
import { publisherFor } from '../../src/producer/index.js';
import { aNotification, alice, inboxItemsFor, SECOND } from '../support/fixtures.js';
import { call, freePort } from '../support/http.js';
import { pollUntil } from '../support/poll-until.js';
import { TestSocket } from '../support/ws-client.js';

const repoRoot = join(import.meta.dirname, '..', '..');
const run = promisify(execFile);
const children: ChildProcess[] = [];
let dataDir: string | undefined;
let teamDataDir: string | undefined;

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

/** Whether any process of the group is still running (signal 0 checks without signalling). */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * SIGTERM to the child's process group (npm, tsx, node), then waits for the whole group to be gone:
 * npm can exit before the runtime's node process has closed its data directory, and the test then
 * opens that directory itself (LevelDB's lock).
 */
async function stopRuntime(child: ChildProcess): Promise<void> {
  if (child.pid === undefined) return;
  const pgid = child.pid;
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    process.kill(-pgid, 'SIGTERM');
    await exited;
  }
  await pollUntil(() => !groupAlive(pgid), { attempts: 300, intervalMs: 50 }, 'every process of npm start exited');
}

afterAll(async () => {
  for (const child of children) await stopRuntime(child).catch(() => undefined);
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
  if (teamDataDir) await rm(teamDataDir, { recursive: true, force: true });
});

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

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
    expect(counts.body).toEqual({ unread: 2, unseen: 2, capped: false, newestId: afterMark.map((item) => item.id).sort().at(-1) });
  }, 120_000);
});

describe('npm start with a team catalog (CATALOG_ENTRY)', () => {
  it("runs the team's own type from the typed producer to the inbox and the socket, and stops when npm is killed", async () => {
    // Prepare
    teamDataDir = await mkdtemp(join(tmpdir(), 'notifications-team-'));
    const [port, wsPort] = [await freePort(), await freePort()];
    const env = { ...process.env, PORT: String(port), WS_PORT: String(wsPort), DATA_DIR: teamDataDir, CATALOG_ENTRY: 'examples/team-catalog/notifications/index.ts' };
    const child = spawn('npm', ['start', '--silent'], { cwd: repoRoot, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => void (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => void (output += chunk.toString()));
    await pollUntil(() => output.includes('local runtime is up') || child.exitCode !== null, { attempts: 600, intervalMs: 100 }, 'npm start is up');
    expect(output).toContain('catalog           examples/team-catalog/notifications/index.ts');
    const http = `http://127.0.0.1:${port}`;
    const token = (await run('npm', ['run', '--silent', 'token', '--', '--tenant', 'acme', '--user', 'alice'], { cwd: repoRoot, env })).stdout.trim();
    const socket = await TestSocket.open(`ws://127.0.0.1:${wsPort}`, token);
    const publish = publisherFor<typeof teamCatalog>();
    const events = new EventBridgeClient({ endpoint: http, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });

    // Act
    const eventId = await publish(events, 'invoice.paid', {
      id: 'inv-2026-001',
      tenantId: 'acme',
      actor: { id: 'billing', name: 'Billing' },
      recipients: ['alice'],
      data: { invoiceId: 'INV-1', amountCents: 12_000, url: 'https://billing.example.com/invoices/INV-1' },
    });
    const [pushed] = await socket.waitFor('notification');
    const inbox = await call(http, 'GET', '/notifications', { token });
    const served = await call(http, 'GET', '/dev/catalog');
    const schema = await call(http, 'GET', '/schemas/events.json');
    await socket.close();

    // Assess
    expect(eventId).toBeTruthy();
    expect(pushed!.notification).toMatchObject({
      type: 'invoice.paid',
      title: 'Billing paid invoice INV-1',
      body: '120.00 received',
      actionUrl: 'https://billing.example.com/invoices/INV-1',
      actions: [{ label: 'View invoice', url: 'https://billing.example.com/invoices/INV-1' }],
    });
    expect((inbox.body as { items: { id: string; type: string }[] }).items).toEqual([expect.objectContaining({ id: pushed!.notification.id, type: 'invoice.paid' })]);
    expect((served.body as { types: { detailType: string }[] }).types.map((type) => type.detailType)).toEqual(['invoice.paid', 'follow.created', 'follow.deleted']);
    expect(Object.keys((schema.body as { $defs: Record<string, unknown> }).$defs)).toEqual(['invoice.paid', 'follow.created', 'follow.deleted']);

    // Act: stop it by the PID of `npm start` alone, as `kill <pid>` would.
    process.kill(child.pid!, 'SIGTERM');
    await pollUntil(async () => (await portIsFree(port)) && (await portIsFree(wsPort)), { attempts: 150, intervalMs: 100 }, 'ports freed after npm start was killed');
    // Its last log line may reach us through the pipe after the ports are free.
    await pollUntil(() => /stopping \(its parent process \d+ exited\)/.test(output), { attempts: 50, intervalMs: 100 }, 'the stop logged');

    // Assess
    expect(output).toMatch(/stopping \(its parent process \d+ exited\)/);
  });
});
