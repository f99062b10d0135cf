/**
 * A team's own type end to end on `npm start` (issue 30): the runtime started with CATALOG_ENTRY
 * (examples/team-catalog, the module a team gives the construct as `catalogEntry`), an event
 * published with the typed producer typed by that catalog, the notification in the inbox and on the
 * socket with the type's links; the demo page's catalog and the events schema list the team's types.
 * Then `kill <pid of npm start>` (npm only, not its group) stops the runtime and frees its ports.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { afterAll, describe, expect, it } from 'vitest';
import type { catalog as teamCatalog } from '../../examples/team-catalog/notifications/index.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../src/local/embedded-dynamo.js';
import { publisherFor } from '../../src/producer/index.js';
import { call, freePort } from '../support/http.js';
import { pollUntil } from '../support/poll-until.js';
import { TestSocket } from '../support/ws-client.js';

const repoRoot = join(import.meta.dirname, '..', '..');
const run = promisify(execFile);
let child: ChildProcess | undefined;
let dataDir: string | undefined;

afterAll(async () => {
  // Whatever the test left running (its own process group only).
  if (child?.pid !== undefined) {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

describe('npm start with a team catalog (CATALOG_ENTRY)', () => {
  it("runs the team's own type from the typed producer to the inbox and the socket, and stops when npm is killed", async () => {
    // Prepare
    dataDir = await mkdtemp(join(tmpdir(), 'notifications-team-'));
    const [port, wsPort] = [await freePort(), await freePort()];
    const env = { ...process.env, PORT: String(port), WS_PORT: String(wsPort), DATA_DIR: dataDir, CATALOG_ENTRY: 'examples/team-catalog/notifications/index.ts' };
    child = spawn('npm', ['start', '--silent'], { cwd: repoRoot, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => void (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => void (output += chunk.toString()));
    await pollUntil(() => output.includes('local runtime is up') || child!.exitCode !== null, { attempts: 600, intervalMs: 100 }, 'npm start is up');
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

    // Assess
    expect(output).toMatch(/stopping \(its parent process \d+ exited\)/);
  });
});
