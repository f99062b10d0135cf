/**
 * Scheduled sends end to end (local runtime in-process, real PutEvents and WebSocket): an event with
 * `sendAt` is deferred whole through the Scheduler port and re-enters its intake queue at `sendAt`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { UserRef } from '../../src/core/model/user.js';
import { startLocalRuntime, type LocalRuntime } from '../../src/local/runtime.js';
import { localSettingsFromEnv, type LocalSettings } from '../../src/local/settings.js';
import { aMention } from '../support/events.js';
import { pollUntil } from '../support/poll-until.js';
import { eventsClientOf, inboxOf, pipelineDrained, publish, sleep } from '../support/schedules-e2e.js';
import { TestSocket } from '../support/ws-client.js';

const SEND_AT_LEAD_MS = 3_000;
const ARRIVAL_POLL = { attempts: 400, intervalMs: 25 };
const user = (userId: string): UserRef => ({ tenantId: 'acme', userId });

let dataDir: string;
let settings: LocalSettings;
let runtime: LocalRuntime;
let events: EventBridgeClient;
const sockets: TestSocket[] = [];

async function start(): Promise<void> {
  runtime = await startLocalRuntime(settings);
  events = eventsClientOf(runtime);
}

async function stop(): Promise<void> {
  await Promise.all(sockets.splice(0).map((socket) => socket.close()));
  events?.destroy();
  await runtime?.close();
}

async function connect(who: UserRef): Promise<TestSocket> {
  const socket = await TestSocket.open(runtime.endpoints.ws, await runtime.secrets.issueToken(who));
  sockets.push(socket);
  return socket;
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'schedules-send-at-e2e-'));
  settings = { ...localSettingsFromEnv({}), port: 0, wsPort: 0, dataDir };
  await start();
});

afterEach(async () => {
  await Promise.all(sockets.splice(0).map((socket) => socket.close()));
});

afterAll(async () => {
  await stop();
  await rm(dataDir, { recursive: true, force: true });
});

describe('sendAt', () => {
  it('an event with sendAt 3 s ahead arrives after sendAt and not before (inbox and live push)', async () => {
    // Prepare
    const who = user('sam');
    const socket = await connect(who);
    const sendAtMs = Math.ceil((Date.now() + SEND_AT_LEAD_MS) / 1000) * 1000;
    const sendAt = new Date(sendAtMs).toISOString();

    // Act
    await publish(events, 'mention.created', aMention({ recipients: ['sam'], sendAt }));
    await pollUntil(() => runtime.scheduler.list().length > 0, ARRIVAL_POLL, 'schedule created');
    const inboxBefore = await inboxOf(runtime, who);
    const messagesBefore = socket.messages.length;
    const checkedBeforeAtMs = Date.now();
    const [pushed] = await socket.waitFor('notification', 1, ARRIVAL_POLL);
    const arrivedAtMs = Date.now();
    await pipelineDrained(runtime);

    // Assess
    expect(checkedBeforeAtMs).toBeLessThan(sendAtMs); // the "before" checks really ran before sendAt
    expect(inboxBefore).toEqual([]);
    expect(messagesBefore).toBe(0);
    expect(arrivedAtMs).toBeGreaterThanOrEqual(sendAtMs);
    expect(pushed!.notification).toMatchObject({ type: 'mention.created', createdAt: sendAt });
    expect((await inboxOf(runtime, who)).map((item) => item.id)).toEqual([pushed!.notification.id]);
  });

  it('sendAt in the past or within the minimum delay is sent now', async () => {
    // Prepare
    const who = user('nia');

    // Act
    await publish(events, 'mention.created', aMention({ recipients: ['nia'], sendAt: new Date(Date.now() - 60_000).toISOString() }));
    await publish(events, 'mention.created', aMention({ recipients: ['nia'], sendAt: new Date(Date.now() + 200).toISOString() }));
    await pipelineDrained(runtime);

    // Assess
    expect(await inboxOf(runtime, who)).toHaveLength(2);
  });

  it('the same scheduled event published twice creates one schedule and one notification', async () => {
    // Prepare
    const who = user('dup');
    const socket = await connect(who);
    const sendAtMs = Date.now() + SEND_AT_LEAD_MS;
    const mention = aMention({ recipients: ['dup'], sendAt: new Date(sendAtMs).toISOString() });
    const schedulesBefore = runtime.scheduler.list().length;

    // Act
    await publish(events, 'mention.created', mention);
    await publish(events, 'mention.created', mention);
    await pipelineDrained(runtime);
    const schedulesAfterBoth = runtime.scheduler.list().length - schedulesBefore;
    await socket.waitFor('notification', 1, ARRIVAL_POLL);
    await pipelineDrained(runtime);
    await sleep(500);

    // Assess
    expect(schedulesAfterBoth).toBe(1);
    expect(socket.ofType('notification')).toHaveLength(1);
    expect(await inboxOf(runtime, who)).toHaveLength(1);
  });

  it('a restart between publish and sendAt loses nothing: the schedule fires in the next runtime', async () => {
    // Prepare
    const who = user('rey');
    const sendAtMs = Date.now() + SEND_AT_LEAD_MS;
    await publish(events, 'mention.created', aMention({ recipients: ['rey'], sendAt: new Date(sendAtMs).toISOString() }));
    await pipelineDrained(runtime);
    expect(runtime.scheduler.list()).toHaveLength(1);

    // Act
    await stop();
    await start();
    const afterRestart = runtime.scheduler.list().length;
    const items = await pollUntil(async () => {
      const inbox = await inboxOf(runtime, who);
      return inbox.length > 0 ? inbox : undefined;
    }, ARRIVAL_POLL, 'scheduled notification in the inbox after restart');

    // Assess
    expect(Date.now()).toBeGreaterThanOrEqual(sendAtMs);
    expect(afterRestart).toBe(1);
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ type: 'mention.created', createdAt: new Date(sendAtMs).toISOString() });
    await pollUntil(() => runtime.scheduler.list().length === 0, ARRIVAL_POLL, 'fired schedule deleted');
  });
});
