/**
 * The client SDK against the local runtime (in-process, real `ws` WebSocket, real fetch, producers
 * on the real EventBridge SDK): the server drops the socket in the middle of a stream of pushes, the
 * client reconnects and catches up, and ends with every notification exactly once and the right counts.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInboxClient, type InboxClient, type InboxClientOptions, type Notification } from '../../src/client/index.js';
import type { EventEnvelope } from '../../src/core/fanout/events.js';
import type { UserRef } from '../../src/core/model/user.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../src/local/embedded-dynamo.js';
import { startLocalRuntime, type LocalRuntime } from '../../src/local/runtime.js';
import { localSettingsFromEnv } from '../../src/local/settings.js';
import { aMention, putEntry, uniqueEventId } from '../support/events.js';
import { call } from '../support/http.js';
import { pollUntil } from '../support/poll-until.js';

const POLL = { attempts: 400, intervalMs: 25 };

let runtime: LocalRuntime;
let dataDir: string;
let events: EventBridgeClient;
const clients: InboxClient[] = [];

/** Counts the sockets each client opens. */
function countingWebSocket() {
  const opened: string[] = [];
  class CountingWebSocket extends WebSocket {
    constructor(url: string) {
      super(url);
      opened.push(url);
    }
  }
  return { opened, CountingWebSocket };
}

function startClient(who: UserRef, overrides: Partial<InboxClientOptions> = {}) {
  const { opened, CountingWebSocket } = countingWebSocket();
  const client = createInboxClient({
    httpUrl: runtime.endpoints.http,
    wsUrl: runtime.endpoints.ws,
    token: () => runtime.secrets.issueToken(who),
    WebSocket: CountingWebSocket,
    backoff: { initialDelayMs: 150, maxDelayMs: 600 },
    ...overrides,
  });
  clients.push(client);
  const live: Notification[] = [];
  client.on('notification', (notification) => live.push(notification));
  client.on('digest', (digest) => live.push(...digest.notifications));
  return { client, live, opened };
}

async function publish(detailType: string, ...details: EventEnvelope[]): Promise<void> {
  const output = await events.send(new PutEventsCommand({ Entries: details.map((detail) => putEntry(detailType, detail)) }));
  expect(output.FailedEntryCount ?? 0).toBe(0);
}

function aComment(recipient: string): EventEnvelope {
  return {
    id: uniqueEventId('comment'),
    tenantId: 'acme',
    actor: { id: 'carol', name: 'Carol' },
    recipients: [recipient],
    data: { postId: 'p-1', commentId: uniqueEventId('c'), excerpt: 'nice post' },
  };
}

async function restInbox(who: UserRef) {
  const token = await runtime.secrets.issueToken(who);
  const page = await call(runtime.endpoints.http, 'GET', '/notifications?limit=100', { token });
  const counts = await call(runtime.endpoints.http, 'GET', '/notifications/counts', { token });
  return { items: (page.body as { items: Notification[] }).items, counts: counts.body as { unread: number; unseen: number; capped: boolean; newestId: string | null } };
}

function dropEverySocket(): number {
  const ids = runtime.live.gateway.connectionIds();
  for (const id of ids) runtime.live.gateway.dropWithoutDisconnect(id);
  return ids.length;
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'client-e2e-'));
  runtime = await startLocalRuntime({
    ...localSettingsFromEnv({}),
    port: 0,
    wsPort: 0,
    dataDir,
    infoBatchWindowMs: 250,
    queueVisibilityTimeoutMs: 300,
  });
  events = new EventBridgeClient({ endpoint: runtime.endpoints.events, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
});

afterAll(async () => {
  for (const client of clients) client.stop();
  events?.destroy();
  await runtime?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('When the server drops the socket mid-stream', () => {
  it('the client ends with every notification exactly once and correct counts', async () => {
    // Prepare: some history before the client starts
    const dana: UserRef = { tenantId: 'acme', userId: 'dana' };
    await publish('mention.created', aMention({ recipients: ['dana'] }), aMention({ recipients: ['dana'] }));
    await pollUntil(async () => (await restInbox(dana)).items.length === 2, POLL, 'history written');
    const { client, live, opened } = startClient(dana, { pageSize: 5 });
    await client.start();
    await pollUntil(() => client.getState().connection === 'open', POLL, 'client connected');

    // Act: a stream of urgent mentions and digestible comments; the server drops the socket twice in
    // the middle (abruptly: no close frame, no $disconnect), and once more closes it via @connections.
    for (let i = 0; i < 12; i += 1) {
      await publish('mention.created', aMention({ recipients: ['dana'], data: { postId: `p-${i}`, excerpt: `mention ${i}` } }));
      if (i % 4 === 1) await publish('comment.created', aComment('dana'), aComment('dana'));
      if (i === 3 || i === 7) expect(dropEverySocket()).toBeGreaterThan(0);
      if (i === 10) {
        const id = await pollUntil(() => runtime.live.gateway.connectionIds()[0], POLL, 'reconnected before the third cut');
        const answer = await fetch(`${runtime.live.gateway.managementEndpoint}/@connections/${encodeURIComponent(id)}`, { method: 'DELETE' });
        expect(answer.status).toBe(204);
      }
      await new Promise((resolve) => setTimeout(resolve, 40));
    }
    const expectedTotal = 2 + 12 + 3 * 2;
    const settled = await pollUntil(
      async () => {
        const server = await restInbox(dana);
        const state = client.getState();
        return server.items.length === expectedTotal &&
          state.notifications.length === expectedTotal &&
          state.connection === 'open' &&
          !state.syncing &&
          state.counts.unread === server.counts.unread
          ? server
          : undefined;
      },
      POLL,
      'client caught up with the server',
    );

    // Assess: every notification once, the same set as the server, newest first
    const state = client.getState();
    const ids = state.notifications.map((item) => item.id);
    expect(new Set(ids).size).toBe(expectedTotal);
    expect(ids).toEqual(settled.items.map((item) => item.id));
    expect(state.counts).toEqual({ unread: expectedTotal, unseen: expectedTotal, capped: false });
    // The server's counts also name the newest unread id they include (the client keeps it apart from the badge).
    const { newestId: _newestId, ...badge } = settled.counts;
    expect(badge).toEqual(state.counts);
    // No toast twice, and only live arrivals are toasted (not the 2 of history)
    const liveIds = live.map((item) => item.id);
    expect(new Set(liveIds).size).toBe(liveIds.length);
    expect(liveIds.every((id) => ids.includes(id))).toBe(true);
    // It really reconnected (three server-side cuts)
    expect(opened.length).toBeGreaterThanOrEqual(4);
  });

  it('keeps the badge of two devices of the same user in step through read_state', async () => {
    // Prepare
    const erin: UserRef = { tenantId: 'acme', userId: 'erin' };
    await publish('mention.created', aMention({ recipients: ['erin'] }), aMention({ recipients: ['erin'] }), aMention({ recipients: ['erin'] }));
    await pollUntil(async () => (await restInbox(erin)).items.length === 3, POLL, 'erin notified');
    const laptop = startClient(erin).client;
    const phone = startClient(erin).client;
    await Promise.all([laptop.start(), phone.start()]);
    await pollUntil(() => laptop.getState().connection === 'open' && phone.getState().connection === 'open', POLL, 'both connected');
    expect(phone.getState().counts).toEqual({ unread: 3, unseen: 3, capped: false });

    // Act / Assess: the laptop opens the bell, the phone's badge clears
    await laptop.markAllSeen();
    await pollUntil(() => phone.getState().counts.unseen === 0, POLL, 'phone badge cleared');
    expect(phone.getState().counts).toEqual({ unread: 3, unseen: 0, capped: false });

    // A single read on the phone reaches the laptop
    const first = phone.getState().notifications[0]!;
    await phone.markRead(first.id);
    await pollUntil(() => laptop.getState().counts.unread === 2, POLL, 'laptop saw the single read');

    // Mark all read on the laptop: both lists read, both counts zero, as the server says
    await laptop.markAllRead();
    await pollUntil(() => phone.getState().counts.unread === 0, POLL, 'phone saw mark-all-read');
    expect(phone.getState().notifications.every((item) => item.read && item.seen)).toBe(true);
    expect((await restInbox(erin)).counts).toEqual({ unread: 0, unseen: 0, capped: false, newestId: null });
  });
});
