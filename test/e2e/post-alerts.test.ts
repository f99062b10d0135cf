/**
 * Post alerts end to end on the local runtime (in-process): follows and a post through real
 * PutEvents, `PUT /alerts/{accountId}` over HTTP, the fan-out's alert job on the PostAlerts queue, the
 * push consumer paging the subscribers, and the real `@aws-sdk/client-sns` against the local SNS
 * stand-in. The runtime's clock is moved to the end of a quiet-hours window instead of waiting.
 */
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserRef } from '../../src/core/model/user.js';
import type { Clock } from '../../src/core/ports/clock.js';
import { wallClockAt } from '../../src/core/preferences/time-zones.js';
import type { LocalRuntime } from '../../src/local/runtime.js';
import { aFollow, aPost } from '../support/events.js';
import { call } from '../support/http.js';
import { pollUntil } from '../support/poll-until.js';
import { inboxOf, pipelineDrained, publish, putPreferences, sleep, startE2eRuntime, stopE2eRuntime } from '../support/schedules-e2e.js';

const POLL = { attempts: 400, intervalMs: 25 };
const user = (userId: string): UserRef => ({ tenantId: 'acme', userId });
const pushToken = (name: string) => `${name}${'0'.repeat(64 - name.length)}`;
const pad = (value: number) => String(value).padStart(2, '0');

let dataDir: string;
let runtime: LocalRuntime;
let events: EventBridgeClient;
let clockOffsetMs = 0;
const clock: Clock = { nowMs: () => Date.now() + clockOffsetMs };

beforeAll(async () => {
  ({ dataDir, runtime, events } = await startE2eRuntime('post-alerts-e2e-', { infoBatchWindowMs: 100 }, { clock }));
});

afterAll(async () => {
  await stopE2eRuntime({ dataDir, runtime, events });
});

async function api(who: UserRef, method: string, path: string, body?: unknown) {
  return call(runtime.endpoints.http, method, path, { token: await runtime.secrets.issueToken(who), ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
}

async function withPhone(who: UserRef, consent: boolean): Promise<string> {
  const token = pushToken(who.userId);
  expect((await api(who, 'POST', '/devices', { platform: 'apns', token })).status).toBe(201);
  if (consent) expect((await api(who, 'PUT', '/push-consent', { version: '2026-11' })).status).toBe(200);
  return token;
}

async function follow(followerIds: string[], accountId: string): Promise<void> {
  await publish(events, 'follow.created', ...followerIds.map((followerId) => aFollow(followerId, accountId)));
  await pipelineDrained(runtime);
}

const pushesTo = (token: string) => runtime.channels.sns.receivedBy(token);

describe('post alerts', () => {
  it('an account with 3 alert subscribers (one without consent, one in quiet hours): one phone now, one when its quiet hours end', { timeout: 120_000 }, async () => {
    // Prepare: ann, bea and cal follow star and turn alerts on; bea never consented; cal is in quiet hours (UTC) ending 1-2 minutes ahead.
    const [ann, bea, cal] = [user('ann'), user('bea'), user('cal')];
    const tokens = { ann: await withPhone(ann, true), bea: await withPhone(bea, false), cal: await withPhone(cal, true) };
    const endMs = Math.ceil((clock.nowMs() + 60_000) / 60_000) * 60_000;
    const hhmm = (ms: number) => `${pad(wallClockAt(ms, 'UTC').hour)}:${pad(wallClockAt(ms, 'UTC').minute)}`;
    await putPreferences(runtime, cal, { timeZone: 'UTC', quietHours: { start: hhmm(endMs - 180_000), end: hhmm(endMs) } });
    await follow(['ann', 'bea', 'cal', 'dee'], 'star');
    for (const who of [ann, bea, cal]) expect((await api(who, 'PUT', '/alerts/star')).status).toBe(200);
    const alertJobs: string[] = [];
    const stop = runtime.queues.alerts.onSend((message) => alertJobs.push(message.body));

    // Act
    await publish(events, 'post.published', aPost('star'));
    await pollUntil(() => pushesTo(tokens.ann).length === 1, POLL, 'ann pushed now');
    await pipelineDrained(runtime);
    await pollUntil(() => [runtime.queues.alerts, runtime.queues.push].every((queue) => queue.peekUndelayed().length === 0), POLL, 'alert and push queues empty');
    await sleep(300);
    const during = { ann: pushesTo(tokens.ann).length, bea: pushesTo(tokens.bea).length, cal: pushesTo(tokens.cal).length };
    clockOffsetMs += endMs - clock.nowMs();
    runtime.scheduler.rearm();
    await pollUntil(() => pushesTo(tokens.cal).length === 1, POLL, 'cal pushed when quiet hours end');
    await sleep(300);
    stop();

    // Assess
    expect(during).toEqual({ ann: 1, bea: 0, cal: 0 });
    expect({ ann: pushesTo(tokens.ann).length, bea: pushesTo(tokens.bea).length, cal: pushesTo(tokens.cal).length }).toEqual({ ann: 1, bea: 0, cal: 1 });
    expect(pushesTo(tokens.ann)[0]).toMatchObject({ title: 'STAR published a post' });
    // The pushed id is the follower's own inbox item (an ordinary account: one item per follower).
    expect((pushesTo(tokens.ann)[0]!.payload as Record<string, unknown>).notificationId).toBe((await inboxOf(runtime, ann))[0]!.id);
    expect(alertJobs).toHaveLength(1);
  });

  it('the route: only accounts the caller follows now; unknown accounts and odd ids refused alike; nobody can act for another user', async () => {
    // Prepare
    const [eve, fay] = [user('eve'), user('fay')];
    await follow(['eve'], 'host');

    // Act
    const answers = {
      followed: (await api(eve, 'PUT', '/alerts/host')).status,
      notFollowing: (await api(fay, 'PUT', '/alerts/host')).status,
      unknown: (await api(eve, 'PUT', '/alerts/nobody-by-that-name')).status,
      self: (await api(eve, 'PUT', '/alerts/eve')).status,
      controlCharacter: (await api(eve, 'PUT', '/alerts/a%00b')).status,
      tooLong: (await api(eve, 'PUT', `/alerts/${'x'.repeat(300)}`)).status,
      query: (await api(eve, 'PUT', '/alerts/host?userId=fay')).status,
      unauthenticated: (await call(runtime.endpoints.http, 'PUT', '/alerts/host')).status,
      // fay turning "off" host's alerts touches only her own (absent) subscription.
      otherUsersOff: (await api(fay, 'DELETE', '/alerts/host')).status,
    };
    await follow(['fay'], 'host');
    const afterFollow = (await api(fay, 'PUT', '/alerts/host')).status;
    const off = (await api(fay, 'DELETE', '/alerts/host')).status;

    // Assess
    expect(answers).toEqual({ followed: 200, notFollowing: 404, unknown: 404, self: 400, controlCharacter: 400, tooLong: 400, query: 400, unauthenticated: 401, otherUsersOff: 204 });
    expect([afterFollow, off]).toEqual([200, 204]);
  });
});
