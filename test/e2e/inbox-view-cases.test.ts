/**
 * The cases of issue 25 end to end on the local runtime, as a new user would try them: events
 * published with the real EventBridge SDK (PutEvents), the inbox read and changed over REST, the
 * pushes seen on a WebSocket (the runtime's clock moved ahead where weeks must pass). Each gives the
 * answer docs/api/inbox-state.md states. Case 9 (the client's badge during the first load) is in the
 * browser suite (test/browser/demo-inbox.spec.ts).
 */
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Notification } from '../../src/core/model/notification.js';
import { INBOX_TTL_DAYS_DEFAULT } from '../../src/core/model/notification.js';
import type { Clock } from '../../src/core/ports/clock.js';
import type { UserRef } from '../../src/core/model/user.js';
import type { LocalRuntime } from '../../src/local/runtime.js';
import { aMention } from '../support/events.js';
import { call, type HttpAnswer } from '../support/http.js';
import { pollUntil } from '../support/poll-until.js';
import { pipelineDrained, publish, sleep, startE2eRuntime, stopE2eRuntime, type E2eRuntime } from '../support/schedules-e2e.js';
import { TestSocket } from '../support/ws-client.js';

/** The runtime's clock: the wall clock plus an offset only the last case moves forward (weeks, not waits). */
let clockOffsetMs = 0;
const clock: Clock = { nowMs: () => Date.now() + clockOffsetMs };
const DAY = 86_400_000;

let started: Partial<E2eRuntime> = {};
let runtime: LocalRuntime;
let events: EventBridgeClient;
const sockets: TestSocket[] = [];
let users = 0;

beforeAll(async () => {
  started = await startE2eRuntime('inbox-view-cases-', {}, { clock });
  runtime = started.runtime!;
  events = started.events!;
});
afterAll(async () => stopE2eRuntime(started, sockets));

function aUser(): UserRef {
  users += 1;
  return { tenantId: 'acme', userId: `case-${users}` };
}

const send = async (user: UserRef, method: string, path: string, body?: unknown): Promise<HttpAnswer> =>
  call(runtime.endpoints.http, method, path, { token: await runtime.secrets.issueToken(user), ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
const list = async (user: UserRef, query = 'limit=100') => ((await send(user, 'GET', `/notifications?${query}`)).body as { items: Notification[] }).items;
const ids = async (user: UserRef, query?: string) => (await list(user, query)).map((item) => item.id);
const counts = async (user: UserRef) => (await send(user, 'GET', '/notifications/counts')).body as { unread: number; unseen: number; capped: boolean; newestId: string | null };

/** One mention to `user` through the bus; answers the event and the user's notification once it is in the inbox. */
async function mention(user: UserRef): Promise<{ eventId: string; id: string }> {
  const event = aMention({ recipients: [user.userId] });
  await publish(events, 'mention.created', event);
  const id = await pollUntil(async () => (await list(user)).find((item) => !seen.has(item.id))?.id, { attempts: 400, intervalMs: 25 }, 'the mention in the inbox');
  seen.add(id);
  return { eventId: event.id, id };
}
const seen = new Set<string>();

async function retract(user: UserRef, eventId: string): Promise<void> {
  await publish(events, 'notification.retracted', { id: `retract-${eventId}`, tenantId: 'acme', actor: { id: 'bob' }, recipients: [user.userId], data: { eventId, type: 'mention.created' } });
  await pipelineDrained(runtime);
}

async function openSocket(user: UserRef): Promise<TestSocket> {
  const socket = await TestSocket.open(runtime.endpoints.ws, await runtime.secrets.issueToken(user));
  sockets.push(socket);
  return socket;
}

describe('issue 25: the inbox view over HTTP on the local runtime', () => {
  it('case 1: an item read by itself, archived by archive-read, then opened from the archive tab stays archived', async () => {
    const user = aUser();
    const { id } = await mention(user);
    expect((await send(user, 'POST', `/notifications/${id}/read`)).status).toBe(204);
    expect((await send(user, 'POST', '/notifications/archive-read')).status).toBe(200);
    expect(await ids(user, 'archived=true')).toEqual([id]);

    expect((await send(user, 'POST', `/notifications/${id}/read`)).status).toBe(204);

    expect(await ids(user)).toEqual([]);
    expect(await ids(user, 'archived=true')).toEqual([id]);
  });

  it('case 2: unread, read-all, archive-read, read-all again: it stays archived', async () => {
    const user = aUser();
    const { id } = await mention(user);
    expect((await send(user, 'POST', `/notifications/${id}/unread`)).status).toBe(204);
    await send(user, 'POST', '/notifications/read-all', {});
    await send(user, 'POST', '/notifications/archive-read');
    await sleep(2);

    await send(user, 'POST', '/notifications/read-all', {});

    expect(await ids(user)).toEqual([]);
    expect(await ids(user, 'archived=true')).toEqual([id]);
  });

  it('case 3: archive-read, unarchive, read-all, archive-read again: archived again', async () => {
    const user = aUser();
    const { id } = await mention(user);
    await send(user, 'POST', '/notifications/read-all', {});
    await send(user, 'POST', '/notifications/archive-read');
    expect((await send(user, 'POST', `/notifications/${id}/unarchive`)).status).toBe(204);
    expect(await ids(user)).toEqual([id]);
    await sleep(2);
    await send(user, 'POST', '/notifications/read-all', {});

    await send(user, 'POST', '/notifications/archive-read');

    expect(await ids(user)).toEqual([]);
    expect(await ids(user, 'archived=true')).toEqual([id]);
  });

  it('case 4: a read-all with a stale upTo from another device leaves what arrived after it unread', async () => {
    const user = aUser();
    const older = await mention(user);
    await sleep(2);
    const x = await mention(user);
    await send(user, 'POST', '/notifications/read-all', {});
    expect((await send(user, 'POST', `/notifications/${x.id}/unread`)).status).toBe(204);
    expect((await counts(user)).unread).toBe(1);

    // Device B's newest rendered id is older than X.
    await send(user, 'POST', '/notifications/read-all', { upTo: older.id });

    expect(await ids(user, 'read=false')).toEqual([x.id]);
    expect(await counts(user)).toEqual({ unread: 1, unseen: 0, capped: false, newestId: x.id });
  });

  it('case 5: a snoozed item whose event is retracted does not come back, nor is it pushed', async () => {
    const user = aUser();
    const { eventId, id } = await mention(user);
    const socket = await openSocket(user);
    const until = new Date(Date.now() + 1_500).toISOString();
    expect((await send(user, 'POST', `/notifications/${id}/snooze`, { until })).status).toBe(200);

    await retract(user, eventId);
    await sleep(Date.parse(until) - Date.now() + 1_500);
    await pipelineDrained(runtime);

    expect(await ids(user)).toEqual([]);
    expect(await counts(user)).toEqual({ unread: 0, unseen: 0, capped: false, newestId: null });
    expect(socket.ofType('notification').map((message) => message.notification.body)).toEqual([]);
    expect(socket.ofType('digest')).toEqual([]);
  });

  it('case 6: a deleted item cannot be snoozed back (404), and does not come back', async () => {
    const user = aUser();
    const { id } = await mention(user);
    expect((await send(user, 'DELETE', `/notifications/${id}`)).status).toBe(204);

    const snooze = await send(user, 'POST', `/notifications/${id}/snooze`, { until: new Date(Date.now() + 1_200).toISOString() });

    expect(snooze.status).toBe(404);
    await sleep(2_000);
    await pipelineDrained(runtime);
    expect(await ids(user)).toEqual([]);
  });

  it('case 7: a retraction that arrives before its event: the event is never pushed, never listed', async () => {
    const user = aUser();
    const socket = await openSocket(user);
    const event = aMention({ recipients: [user.userId] });

    await retract(user, event.id);
    await publish(events, 'mention.created', event);
    await pipelineDrained(runtime);
    await sleep(300);
    await pipelineDrained(runtime);

    expect(socket.notificationIds()).toEqual([]);
    expect(await ids(user)).toEqual([]);
    expect(await counts(user)).toEqual({ unread: 0, unseen: 0, capped: false, newestId: null });
  });

  it('case 8: every per-item route on a retracted id answers 404, and bulk names it under notFound', async () => {
    const user = aUser();
    const { eventId, id } = await mention(user);
    await retract(user, eventId);

    const answers = await Promise.all([
      send(user, 'POST', `/notifications/${id}/read`),
      send(user, 'POST', `/notifications/${id}/unread`),
      send(user, 'POST', `/notifications/${id}/seen`),
      send(user, 'POST', `/notifications/${id}/archive`),
      send(user, 'POST', `/notifications/${id}/unarchive`),
      send(user, 'DELETE', `/notifications/${id}`),
      send(user, 'POST', `/notifications/${id}/snooze`, { until: new Date(Date.now() + 60_000).toISOString() }),
    ]);
    const bulk = await send(user, 'POST', '/notifications/bulk', { action: 'archive', ids: [id] });

    expect(answers.map((answer) => answer.status)).toEqual([404, 404, 404, 404, 404, 404, 404]);
    expect(bulk.body).toEqual({ updated: [], notFound: [id] });
  });

  // Last: it moves the runtime's clock weeks ahead.
  it('case 5 (TTL): a snooze past its notification\'s expiry is refused (400), and a comeback expires with the notification it brings back', async () => {
    const user = aUser();
    const { id } = await mention(user);
    const socket = await openSocket(user);
    // 70 of the inbox's 90 days later: the mention has 20 days left.
    expect(INBOX_TTL_DAYS_DEFAULT).toBe(90);
    clockOffsetMs += 70 * DAY;

    const tooLate = await send(user, 'POST', `/notifications/${id}/snooze`, { until: new Date(clock.nowMs() + 25 * DAY).toISOString() });

    expect(tooLate.status).toBe(400);
    expect((tooLate.body as { error: { code: string; message: string } }).error).toMatchObject({ code: 'snooze_past_expiry', message: expect.stringMatching(/^until must be before \d{4}-\d\d-\d\dT.*Z, when this notification expires$/) });
    expect(await ids(user)).toEqual([id]);

    const untilMs = clock.nowMs() + 19 * DAY;
    expect((await send(user, 'POST', `/notifications/${id}/snooze`, { until: new Date(untilMs).toISOString() })).status).toBe(200);
    expect(await ids(user)).toEqual([]);
    clockOffsetMs += untilMs - clock.nowMs() + 1_000;
    runtime.scheduler.rearm();
    const [pushed] = await socket.waitFor('notification', 1, { attempts: 200, intervalMs: 50 });
    expect(pushed!.notification.comebackOf).toBe(id);
    expect(await ids(user)).toEqual([pushed!.notification.id]);

    // Past the mention's 90 days: the comeback goes with it (it came back 19 days into a snooze, not 90 days ago).
    clockOffsetMs += 2 * DAY;

    expect(await ids(user)).toEqual([]);
    expect(await counts(user)).toEqual({ unread: 0, unseen: 0, capped: false, newestId: null });
  });
});
