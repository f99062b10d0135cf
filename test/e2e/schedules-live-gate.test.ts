/**
 * Preferences in the live path end to end (local runtime in-process, real PutEvents and WebSocket):
 * a muted type never appears, live delivery off means inbox only, and a burst above the per-user
 * rate limit arrives as one digest when the window ends. Quiet hours: schedules-quiet-hours.test.ts.
 */
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserRef } from '../../src/core/model/user.js';
import type { LocalRuntime } from '../../src/local/runtime.js';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../src/core/model/keys.js';
import { aComment, aFollow, aMention, aPost } from '../support/events.js';
import { call } from '../support/http.js';
import { pollUntil } from '../support/poll-until.js';
import { startE2eRuntime, stopE2eRuntime, inboxOf, pipelineDrained, publish, putPreferences, sleep } from '../support/schedules-e2e.js';
import { TestSocket } from '../support/ws-client.js';

const RATE_LIMIT = 3;
const RATE_WINDOW_MS = 6_000;
const user = (userId: string): UserRef => ({ tenantId: 'acme', userId });

let dataDir: string;
let runtime: LocalRuntime;
let events: EventBridgeClient;
const sockets: TestSocket[] = [];

async function connect(who: UserRef): Promise<TestSocket> {
  const socket = await TestSocket.open(runtime.endpoints.ws, await runtime.secrets.issueToken(who));
  sockets.push(socket);
  return socket;
}


beforeAll(async () => {
  ({ dataDir, runtime, events } = await startE2eRuntime('schedules-gate-e2e-', {
    infoBatchWindowMs: 300,
    rateLimitPerMinute: RATE_LIMIT,
    rateLimitWindowMs: RATE_WINDOW_MS,
    celebrityThreshold: 2,
  }));
});

afterAll(async () => {
  await stopE2eRuntime({ dataDir, runtime, events }, sockets);
});

describe('muted types and live delivery per type', () => {
  it('a muted type never appears: no inbox item, no push; other types still do', async () => {
    // Prepare
    const who = user('mo');
    await putPreferences(runtime, who, { timeZone: 'UTC', mutedTypes: ['comment.created'] });
    const socket = await connect(who);

    // Act
    await publish(events, 'comment.created', aComment('mo'), aComment('mo'));
    await publish(events, 'mention.created', aMention({ recipients: ['mo'] }));
    await socket.waitFor('notification');
    await pipelineDrained(runtime);
    await sleep(500);

    // Assess
    expect((await inboxOf(runtime, who)).map((item) => item.type)).toEqual(['mention.created']);
    expect(socket.notificationIds()).toHaveLength(1);
    expect(socket.ofType('notification')[0]!.notification.type).toBe('mention.created');
  });

  it('live delivery off for a type: the inbox item is written, nothing is pushed', async () => {
    // Prepare
    const who = user('lia');
    await putPreferences(runtime, who, { timeZone: 'UTC', liveDelivery: { 'mention.created': false } });
    const socket = await connect(who);

    // Act
    await publish(events, 'mention.created', aMention({ recipients: ['lia'] }));
    await pipelineDrained(runtime);
    await sleep(500);

    // Assess
    expect(await inboxOf(runtime, who)).toHaveLength(1);
    expect(socket.messages).toEqual([]);
  });
});

describe('muted types and celebrity feeds (read-time merge)', () => {
  it("a celebrity's post of a muted type is left out of the follower's inbox view, counts and pushes", async () => {
    // Prepare: two followers make m-star a celebrity (threshold 2); m-f1 mutes post.published.
    const followedAt = new Date(Date.now() - 60_000).toISOString();
    await publish(events, 'follow.created', aFollow('m-f1', 'm-star', { time: followedAt }), aFollow('m-f2', 'm-star', { time: followedAt }));
    await pollUntil(
      async () => {
        const items = await Promise.all(['m-f1', 'm-f2'].map((follower) => runtime.documentClient.send(new GetCommand({ TableName: runtime.dynamo.tableNames.graph, Key: keys.followingCeleb('acme', follower, 'm-star') }))));
        return items.every((output) => output.Item !== undefined);
      },
      { attempts: 400, intervalMs: 25 },
      'm-star promoted and listed for both followers',
    );
    await pipelineDrained(runtime);
    await putPreferences(runtime, user('m-f1'), { timeZone: 'UTC', mutedTypes: ['post.published'] });
    const muted = await connect(user('m-f1'));
    const listening = await connect(user('m-f2'));

    // Act
    await publish(events, 'post.published', aPost('m-star'));
    await listening.waitFor('notification');
    await pipelineDrained(runtime);
    await sleep(500);

    // Assess
    expect((await inboxOf(runtime, user('m-f2'))).map((item) => item.type)).toEqual(['post.published']);
    expect(await inboxOf(runtime, user('m-f1'))).toEqual([]);
    const token = await runtime.secrets.issueToken(user('m-f1'));
    expect((await call(runtime.endpoints.http, 'GET', '/notifications/counts', { token })).body).toMatchObject({ unread: 0, unseen: 0 });
    expect(muted.messages).toEqual([]);
  });
});

describe('rate limit per user', () => {
  it('a burst above N pushes in a window arrives as N pushes then ONE digest at the window end', { timeout: 60_000 }, async () => {
    // Prepare: start right after a window boundary so the burst sits in one window.
    const who = user('rae');
    const socket = await connect(who);
    const untilNextWindow = RATE_WINDOW_MS - (Date.now() % RATE_WINDOW_MS);
    await sleep(untilNextWindow + 50);
    const windowEndMs = Math.ceil(Date.now() / RATE_WINDOW_MS) * RATE_WINDOW_MS;
    const burst = Array.from({ length: RATE_LIMIT + 5 }, () => aMention({ recipients: ['rae'] }));

    // Act
    await publish(events, 'mention.created', ...burst);
    await socket.waitFor('notification', RATE_LIMIT);
    await pipelineDrained(runtime);
    const beforeWindowEnd = { notifications: socket.ofType('notification').length, digests: socket.ofType('digest').length, atMs: Date.now() };
    const [digest] = await socket.waitFor('digest', 1, { attempts: 400, intervalMs: 50 });
    const digestAtMs = Date.now();
    await sleep(300);

    // Assess
    expect(beforeWindowEnd.atMs).toBeLessThan(windowEndMs);
    expect(beforeWindowEnd).toMatchObject({ notifications: RATE_LIMIT, digests: 0 });
    expect(digestAtMs).toBeGreaterThanOrEqual(windowEndMs);
    expect(digest!.count).toBe(5);
    expect(socket.ofType('digest')).toHaveLength(1);
    expect(socket.ofType('notification')).toHaveLength(RATE_LIMIT);
    const inbox = await inboxOf(runtime, who);
    expect(inbox).toHaveLength(RATE_LIMIT + 5);
    expect(new Set(socket.notificationIds())).toEqual(new Set(inbox.map((item) => item.id)));
  });
});
