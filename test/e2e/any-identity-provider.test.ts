/**
 * Any identity provider (issue 16): subjects and tenants the way Auth0, Google, Clerk or an e-mail
 * login issue them work end to end against the local runtime: a token from `npm run token`, the
 * REST inbox, a live push over WebSocket, and no partition shared between two subjects.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserRef } from '../../src/core/model/user.js';
import { startLocalRuntime, type LocalRuntime } from '../../src/local/runtime.js';
import { localSettingsFromEnv } from '../../src/local/settings.js';
import { aMention, putEntry } from '../support/events.js';
import { call } from '../support/http.js';
import { pollUntil } from '../support/poll-until.js';
import { TestSocket } from '../support/ws-client.js';

const repoRoot = join(import.meta.dirname, '..', '..');
const run = promisify(execFile);
const SUBJECTS = ['auth0|64f1c2', 'google-oauth2|1234', 'user_2abc', 'a@b.c', `long|${'x'.repeat(195)}`];
const TENANTS = ['acme', 'https://example.com/orgs/42', `org_${'t'.repeat(196)}`];

let runtime: LocalRuntime;
let dataDir: string;
let events: EventBridgeClient;
const sockets: TestSocket[] = [];

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'notifications-idp-e2e-'));
  runtime = await startLocalRuntime({ ...localSettingsFromEnv({}), port: 0, wsPort: 0, dataDir, infoBatchWindowMs: 200, functionTimeoutMs: 500 });
  events = new EventBridgeClient({ endpoint: runtime.endpoints.events, region: 'us-east-1', credentials: { accessKeyId: 'any', secretAccessKey: 'any' } });
});

afterAll(async () => {
  await Promise.all(sockets.map((socket) => socket.close()));
  events?.destroy();
  await runtime?.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function inboxOf(token: string): Promise<{ status: number; items: { actor: { id: string } }[] }> {
  const answer = await call(runtime.endpoints.http, 'GET', '/notifications', { token });
  return { status: answer.status, items: (answer.body as { items?: { actor: { id: string } }[] }).items ?? [] };
}

describe('tokens of any identity provider', () => {
  it.each(SUBJECTS.flatMap((userId) => TENANTS.map((tenantId) => [tenantId.slice(0, 30), userId.slice(0, 30), { tenantId, userId }] as const)))(
    'tenant %s, sub %s: live push and REST inbox',
    async (_tenant, _sub, who: UserRef) => {
      // Prepare
      const token = await runtime.secrets.issueToken(who);
      const socket = await TestSocket.open(runtime.endpoints.ws, token);
      sockets.push(socket);

      // Act
      const output = await events.send(new PutEventsCommand({ Entries: [putEntry('mention.created', aMention({ tenantId: who.tenantId, actor: { id: 'google-oauth2|999', name: 'G' }, recipients: [who.userId] }))] }));
      const [pushed] = await socket.waitFor('notification');
      const inbox = await inboxOf(token);

      // Assess
      expect(output.FailedEntryCount ?? 0).toBe(0);
      expect(pushed!.notification).toMatchObject({ type: 'mention.created', actor: { id: 'google-oauth2|999' } });
      expect(inbox.status).toBe(200);
      expect(inbox.items).toHaveLength(1);
    },
  );

  it('keeps subjects that differ only in escaped characters apart', async () => {
    // Prepare: `a|b` escapes to `a%7Cb`, which is also a legal subject of its own.
    const piped = await runtime.secrets.issueToken({ tenantId: 'acme', userId: 'a|b' });
    const lookalike = await runtime.secrets.issueToken({ tenantId: 'acme', userId: 'a%7Cb' });

    // Act
    await events.send(new PutEventsCommand({ Entries: [putEntry('mention.created', aMention({ recipients: ['a|b'] }))] }));
    await pollUntil(async () => (await inboxOf(piped)).items.length === 1, { attempts: 200, intervalMs: 25 }, 'a|b has its mention');

    // Assess
    expect((await inboxOf(lookalike)).items).toHaveLength(0);
  });

  it('`npm run token` issues tokens for such subjects', async () => {
    // Prepare
    const env = { ...process.env, DATA_DIR: dataDir };

    // Act
    const tokens = await Promise.all(
      ['auth0|64f1c2', 'x'.repeat(200)].map(async (sub) => (await run('npm', ['run', '--silent', 'token', '--', '--tenant', 't', '--user', sub], { cwd: repoRoot, env })).stdout.trim()),
    );

    // Assess
    for (const token of tokens) expect((await inboxOf(token)).status).toBe(200);
  });
});
