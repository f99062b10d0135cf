/**
 * The client SDK against the local runtime when a push names more notifications than it carries: a
 * burst above the rate limit is released as ONE digest whose bodies do not fit in 128 KB, so the
 * digest lists every id but carries only the newest; the client fetches the rest and ends with
 * every notification exactly once, without waiting for a reconnect.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInboxClient, type DigestEvent, type DigestMessage, type InboxClient, type Notification, type ServerMessage } from '../../src/client/index.js';
import type { UserRef } from '../../src/core/model/user.js';
import { startLocalRuntime, type LocalRuntime } from '../../src/local/runtime.js';
import { localSettingsFromEnv } from '../../src/local/settings.js';
import { aComment } from '../support/events.js';
import { pollUntil } from '../support/poll-until.js';
import { eventsClientOf, inboxOf, publish, sleep } from '../support/schedules-e2e.js';

const RATE_WINDOW_MS = 5_000;
const BURST = 50;
const POLL = { attempts: 600, intervalMs: 25 };

let dataDir: string;
let runtime: LocalRuntime;
let events: EventBridgeClient;
let client: InboxClient | undefined;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'client-digest-e2e-'));
  runtime = await startLocalRuntime({
    ...localSettingsFromEnv({}),
    port: 0,
    wsPort: 0,
    dataDir,
    infoBatchWindowMs: 200,
    // One push per window: the rest of the burst is held and released as one digest.
    rateLimitPerMinute: 1,
    rateLimitWindowMs: RATE_WINDOW_MS,
  });
  events = eventsClientOf(runtime);
});

afterAll(async () => {
  client?.stop();
  events?.destroy();
  await runtime?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** A `ws` WebSocket that also records every server message as it came over the wire. */
function recordingWebSocket() {
  const received: ServerMessage[] = [];
  class RecordingWebSocket extends WebSocket {
    constructor(url: string) {
      super(url);
      this.on('message', (data) => received.push(JSON.parse(data.toString()) as ServerMessage));
    }
  }
  return { received, RecordingWebSocket };
}

describe('A digest too large for one WebSocket message', () => {
  it('reaches the client store whole: the ids it names but does not carry are fetched, each once', { timeout: 90_000 }, async () => {
    // Prepare: comments as large as the catalog allows (4 KB actor, 1,000-character excerpt), so
    // the held burst (~5 KB each) cannot fit in 128 KB
    const gus: UserRef = { tenantId: 'acme', userId: 'gus' };
    const { received, RecordingWebSocket } = recordingWebSocket();
    client = createInboxClient({
      httpUrl: runtime.endpoints.http,
      wsUrl: runtime.endpoints.ws,
      token: () => runtime.secrets.issueToken(gus),
      WebSocket: RecordingWebSocket,
    });
    const live: Notification[] = [];
    const digests: DigestEvent[] = [];
    client.on('notification', (notification) => live.push(notification));
    client.on('digest', (digest) => {
      digests.push(digest);
      live.push(...digest.notifications);
    });
    await client.start();
    await pollUntil(() => client!.getState().connection === 'open', POLL, 'client connected');
    const bigComment = (n: number) =>
      aComment('gus', {
        actor: { id: 'carol', name: 'Carol', bio: 'b'.repeat(3_900) },
        data: { postId: 'p-1', commentId: `c-${n}`, excerpt: `${n} `.padEnd(1_000, 'x') },
      });

    // Act: the burst starts a rate-limit window (windows are aligned to the clock), so it is held whole
    await sleep(RATE_WINDOW_MS - (Date.now() % RATE_WINDOW_MS) + 50);
    await Promise.all(
      Array.from({ length: BURST / 10 }, (_, chunk) => publish(events, 'comment.created', ...Array.from({ length: 10 }, (_, n) => bigComment(chunk * 10 + n)))),
    );
    const oversize = await pollUntil(
      () => received.find((message): message is DigestMessage => message.type === 'digest' && message.ids.length > message.notifications.length),
      { attempts: 400, intervalMs: 50 },
      'an oversize digest',
    );
    // The whole burst: on a loaded machine its fan-out can outlast the window, and the rest of it then
    // comes in the next window's digest (the oversize one still names more than it carries).
    const inStore = await pollUntil(
      () => {
        const { notifications } = client!.getState();
        return notifications.length >= BURST && oversize.ids.every((id) => notifications.some((item) => item.id === id)) ? notifications : undefined;
      },
      POLL,
      'the digest whole and the whole burst in the client store',
    );

    // Assess: all of the burst once, in the server's order, each reported once; no reconnect needed
    const server = await inboxOf(runtime, gus);
    expect(server).toHaveLength(BURST);
    expect(inStore.map((item) => item.id)).toEqual(server.map((item) => item.id));
    const liveIds = live.map((item) => item.id);
    expect(new Set(liveIds).size).toBe(liveIds.length);
    expect(digests.some((digest) => digest.notifications.length === oversize.ids.length)).toBe(true);
    expect(await pollUntil(() => (client!.getState().counts?.unread === BURST ? client!.getState().counts : undefined), POLL, 'the badge at the burst')).toEqual({ unread: BURST, unseen: BURST, capped: false });
  });
});
