/**
 * The read model at its edges, end to end (local runtime in-process, real PutEvents, HTTP and
 * WebSocket): ids ordered by arrival, read-all up to what was shown, follows and promotions without
 * gaps, and catch-up (`since`) that returns every late arrival.
 */
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventEnvelope } from '../../src/core/fanout/events.js';
import type { Notification } from '../../src/core/model/notification.js';
import type { UserRef } from '../../src/core/model/user.js';
import type { LocalRuntime } from '../../src/local/runtime.js';
import { aComment, aFollow, aMention, aPost, putAllEntries, putEntry } from '../support/events.js';
import { call } from '../support/http.js';
import { pollUntil, type PollOptions } from '../support/poll-until.js';
import { startE2eRuntime, stopE2eRuntime, pipelineDrained, putPreferences, sleep } from '../support/schedules-e2e.js';
import { TestSocket } from '../support/ws-client.js';

const CELEBRITY_THRESHOLD = 3;
const poll: PollOptions = { attempts: 600, intervalMs: 25 };
const HOUR = 3_600_000;

let dataDir: string;
let runtime: LocalRuntime;
let events: EventBridgeClient;
const sockets: TestSocket[] = [];

const user = (userId: string): UserRef => ({ tenantId: 'acme', userId });

async function request(userId: string, method: string, path: string, body?: unknown) {
  const token = await runtime.secrets.issueToken(user(userId));
  return call(runtime.endpoints.http, method, path, { token, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
}

async function listOf(userId: string, query = ''): Promise<Notification[]> {
  const answer = await request(userId, 'GET', `/notifications?limit=100${query}`);
  expect(answer.status).toBe(200);
  return (answer.body as { items: Notification[] }).items;
}

async function countsOf(userId: string): Promise<{ unread: number; unseen: number }> {
  return (await request(userId, 'GET', '/notifications/counts')).body as { unread: number; unseen: number };
}

/** Waits until the user's view holds at least `count` items; returns them newest first. */
async function landed(userId: string, count = 1, query = ''): Promise<Notification[]> {
  return pollUntil(async () => {
    const items = await listOf(userId, query);
    return items.length >= count ? items : undefined;
  }, poll, `${count} notification(s) for ${userId}`);
}

async function publish(...entries: Array<[string, EventEnvelope]>): Promise<void> {
  await putAllEntries(events, entries.map(([type, detail]) => putEntry(type, detail)));
}

async function connect(userId: string): Promise<TestSocket> {
  const socket = await TestSocket.open(runtime.endpoints.ws, await runtime.secrets.issueToken(user(userId)));
  sockets.push(socket);
  return socket;
}

beforeAll(async () => {
  ({ dataDir, runtime, events } = await startE2eRuntime('arrival-order-e2e-', {
    celebrityThreshold: CELEBRITY_THRESHOLD,
    queueVisibilityTimeoutMs: 200,
    maxReceiveCount: 3,
    infoBatchWindowMs: 100,
  }));
});

afterAll(async () => {
  await stopE2eRuntime({ dataDir, runtime, events }, sockets);
});

describe('read-all and arrival order', () => {
  it('a notification published after read-all is unread: 100 of 100 trials, without `time`, with `time` now and with a time an hour back', { timeout: 120_000 }, async () => {
    // Prepare: 100 users, each with an older notification already read
    const trials = Array.from({ length: 100 }, (_, i) => `ra-${i}`);

    // Act: per trial, read-all then publish three mentions (in parallel batches of 50 trials)
    for (let i = 0; i < trials.length; i += 50) {
      await Promise.all(
        trials.slice(i, i + 50).map(async (userId) => {
          expect((await request(userId, 'POST', '/notifications/read-all')).status).toBe(200);
          const now = Date.now();
          await publish(
            ['mention.created', aMention({ recipients: [userId] })],
            ['mention.created', aMention({ recipients: [userId], time: new Date(now).toISOString() })],
            ['mention.created', aMention({ recipients: [userId], time: new Date(now - HOUR).toISOString() })],
          );
        }),
      );
    }
    await pipelineDrained(runtime, poll);

    // Assess
    const unreadPerTrial = await Promise.all(trials.map(async (userId) => (await countsOf(userId)).unread));
    expect(unreadPerTrial.filter((unread) => unread === 3)).toHaveLength(100);
    const sample = await listOf(trials[0]!);
    expect(sample.map((item) => item.read)).toEqual([false, false, false]);
  });

  it('read-all with upTo marks what was shown and leaves a newer arrival unread; a bad upTo is a 400', async () => {
    // Prepare: one notification shown, then another arrives
    await publish(['mention.created', aMention({ recipients: ['upto'] })]);
    const [shown] = await landed('upto', 1);
    await publish(['mention.created', aMention({ recipients: ['upto'], time: new Date(Date.now() - HOUR).toISOString() })]);
    const both = await landed('upto', 2);

    // Act
    const answer = await request('upto', 'POST', '/notifications/read-all', { upTo: shown!.id });
    const refused = await request('upto', 'POST', '/notifications/seen-all', { upTo: 'not-an-id' });

    // Assess: the later arrival sorts above the shown one (despite its older time) and stays unread
    expect(answer.status).toBe(200);
    expect(both[0]!.id > shown!.id).toBe(true);
    expect((await listOf('upto')).map((item) => [item.id, item.read])).toEqual([
      [both[0]!.id, false],
      [shown!.id, true],
    ]);
    expect(await countsOf('upto')).toMatchObject({ unread: 1 });
    expect(refused.status).toBe(400);
  });
});

describe('follows and posts by arrival', () => {
  it('ordinary and celebrity accounts: a follow right after a post does not see it; a post after the follow is in view', async () => {
    // Prepare: an ordinary account (1 follower) and a celebrity (3 followers, promoted)
    await publish(['follow.created', aFollow('fa-early', 'fa-plain')]);
    await publish(...['fa-c1', 'fa-c2', 'fa-c3'].map((follower) => ['follow.created', aFollow(follower, 'fa-star')] as [string, EventEnvelope]));
    await pipelineDrained(runtime, poll);

    // Act: posts, then (within the same second) new follows, then posts again
    await publish(['post.published', aPost('fa-plain')], ['post.published', aPost('fa-star')]);
    await pipelineDrained(runtime, poll);
    await publish(['follow.created', aFollow('fa-late', 'fa-plain')], ['follow.created', aFollow('fa-late', 'fa-star')]);
    await pipelineDrained(runtime, poll);
    await publish(['post.published', aPost('fa-plain', { data: { postId: 'second', title: 'plain again' } })], ['post.published', aPost('fa-star', { data: { postId: 'second', title: 'star again' } })]);
    await pipelineDrained(runtime, poll);

    // Assess
    expect((await listOf('fa-late')).map((item) => item.body).sort()).toEqual(['plain again', 'star again']);
    expect((await listOf('fa-early')).map((item) => item.body)).toEqual(['plain again', 'a post by fa-plain']);
    expect((await listOf('fa-c1')).map((item) => item.body)).toEqual(['star again', 'a post by fa-star']);
  });

  it('60 accounts crossing CELEBRITY_THRESHOLD=3 with concurrent follows: every follower sees all 60 posts exactly once', { timeout: 120_000 }, async () => {
    // Prepare: three users follow 60 accounts; the follows of 10 accounts are published together, all groups at once
    const accounts = Array.from({ length: 60 }, (_, i) => `x-a${String(i).padStart(2, '0')}`);
    const followers = ['x-f1', 'x-f2', 'x-f3'];
    const groups = Array.from({ length: 6 }, (_, g) => accounts.slice(g * 10, g * 10 + 10));
    await Promise.all(groups.map((group) => publish(...group.flatMap((account) => followers.map((follower) => ['follow.created', aFollow(follower, account)] as [string, EventEnvelope])))));
    await pipelineDrained(runtime, poll);

    // Act: one post per account
    await publish(...accounts.map((account) => ['post.published', aPost(account)] as [string, EventEnvelope]));
    await pipelineDrained(runtime, poll);

    // Assess
    for (const follower of followers) {
      const posts = (await listOf(follower)).filter((item) => item.type === 'post.published');
      expect(posts.map((item) => item.actor.id).sort()).toEqual(accounts);
    }
  });
});

describe('catch-up returns every late arrival (since = the newest id seen before it landed)', () => {
  it('a record that fails twice, then succeeds', async () => {
    // Prepare: the mention is accepted, then two receives fail (received, never deleted)
    const intake = runtime.queues.urgentIntake['mention.created']!;
    intake.setConsumerEnabled(false);
    await publish(['mention.created', aMention({ recipients: ['late-retry'], time: new Date(Date.now() - HOUR).toISOString() })]);
    for (let attempt = 0; attempt < 2; attempt += 1) expect(intake.receive(1, 0)).toHaveLength(1);
    await publish(['comment.created', aComment('late-retry')]);
    const [seen] = await landed('late-retry', 1);

    // Act
    intake.setConsumerEnabled(true);
    await pipelineDrained(runtime, poll);

    // Assess
    const caughtUp = await listOf('late-retry', `&since=${seen!.id}`);
    expect(caughtUp.map((item) => item.type)).toEqual(['mention.created']);
  });

  it('a DLQ redrive hours later; then the same event replayed (three copies in all) gives one item and one push per device', async () => {
    // Prepare: the mention exhausts its receives and moves to the DLQ
    const intake = runtime.queues.urgentIntake['mention.created']!;
    const deadLetters = intake.deadLetterQueue!;
    const devices = [await connect('late-dlq'), await connect('late-dlq')];
    intake.setConsumerEnabled(false);
    const mention = aMention({ recipients: ['late-dlq'], time: new Date(Date.now() - 2 * HOUR).toISOString() });
    await publish(['mention.created', mention]);
    for (let attempt = 0; attempt < 3; attempt += 1) expect(intake.receive(1, 0)).toHaveLength(1);
    expect(intake.receive(1, 0)).toEqual([]);
    expect(deadLetters.peek()).toHaveLength(1);
    intake.setConsumerEnabled(true);
    await publish(['comment.created', aComment('late-dlq')]);
    const [seen] = await landed('late-dlq', 1);

    // Act: redrive (move the message back to its source queue), then two more copies of the event
    const [dead] = deadLetters.receive(1);
    intake.send(dead!.body);
    deadLetters.delete(dead!.receiptHandle!);
    await pipelineDrained(runtime, poll);
    const caughtUp = await listOf('late-dlq', `&since=${seen!.id}`);
    await publish(['mention.created', mention]);
    await publish(['mention.created', mention]);
    await pipelineDrained(runtime, poll);
    await sleep(300);

    // Assess
    expect(caughtUp.map((item) => item.type)).toEqual(['mention.created']);
    const mentions = (await listOf('late-dlq')).filter((item) => item.type === 'mention.created');
    expect(mentions).toHaveLength(1);
    for (const device of devices) expect(device.notificationIds().filter((id) => id === mentions[0]!.id)).toHaveLength(1);
  });

  it('a push held by quiet hours and a scheduled send (sendAt) with a backdated time', async () => {
    // Prepare: quiet all day except the minute before last (UTC)
    const clock = (ms: number) => new Date(ms).toISOString().slice(11, 16);
    await putPreferences(runtime, user('late-quiet'), { timeZone: 'UTC', quietHours: { start: clock(Date.now() - 60_000), end: clock(Date.now() - 120_000) } });
    await publish(['mention.created', aMention({ recipients: ['late-quiet'] })]);
    const [seen] = await landed('late-quiet', 1);

    // Act
    await publish(
      ['comment.created', aComment('late-quiet', { time: new Date(Date.now() - HOUR).toISOString() })],
      ['comment.created', aComment('late-quiet', { time: new Date(Date.now() - HOUR).toISOString(), sendAt: new Date(Date.now() + 2_000).toISOString() })],
    );
    const first = await landed('late-quiet', 1, `&since=${seen!.id}`);
    const beforeSendAt = first[0]!;
    const afterSendAt = await landed('late-quiet', 1, `&since=${beforeSendAt.id}`);

    // Assess: each later arrival is above what was seen before it landed
    expect(first).toHaveLength(1);
    expect(afterSendAt.map((item) => item.type)).toEqual(['comment.created']);
    expect(afterSendAt[0]!.createdAt > beforeSendAt.createdAt).toBe(true);
  });
});
