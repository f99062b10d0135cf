/**
 * Mobile push and email end to end on the local runtime (in-process): real PutEvents, the real
 * `@aws-sdk/client-sns` and `@aws-sdk/client-sesv2` against the local SNS mobile-push and SES v2
 * stand-ins, the WebSocket, and the DLQ redrive of `npm run dlq`.
 */
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../src/core/model/keys.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserRef } from '../../src/core/model/user.js';
import { redriveDeadLetterQueue } from '../../src/ops/dlq.js';
import { localTarget } from '../../src/ops/targets.js';
import type { LocalRuntime } from '../../src/local/runtime.js';
import { aComment, aMention } from '../support/events.js';
import { call } from '../support/http.js';
import { pollUntil } from '../support/poll-until.js';
import { startE2eRuntime, stopE2eRuntime, inboxOf, publish, putPreferences, sleep } from '../support/schedules-e2e.js';
import { TestSocket } from '../support/ws-client.js';

const POLL = { attempts: 300, intervalMs: 25 };
const user = (userId: string): UserRef => ({ tenantId: 'acme', userId });
const emailOf = (who: UserRef) => `${who.userId}@example.test`;
const pushToken = (name: string) => `${name}${'0'.repeat(64 - name.length)}`;

let dataDir: string;
let runtime: LocalRuntime;
let events: EventBridgeClient;
const sockets: TestSocket[] = [];

beforeAll(async () => {
  ({ dataDir, runtime, events } = await startE2eRuntime('channels-e2e-', { infoBatchWindowMs: 200, channelBatchWindowMs: 400, queueVisibilityTimeoutMs: 1_000 }));
});

afterAll(async () => {
  await stopE2eRuntime({ dataDir, runtime, events }, sockets);
});

async function tokenOf(who: UserRef): Promise<string> {
  return runtime.secrets.issueToken({ ...who, email: emailOf(who) });
}

async function api(who: UserRef, method: string, path: string, body?: unknown) {
  return call(runtime.endpoints.http, method, path, { token: await tokenOf(who), ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
}

/** Devices, consent and email address as an app would register them. */
async function setUp(who: UserRef, options: { tokens?: string[]; consent?: boolean; email?: boolean }): Promise<void> {
  for (const token of options.tokens ?? []) expect((await api(who, 'POST', '/devices', { platform: 'apns', token, locale: 'en-GB' })).status).toBe(201);
  if (options.consent) expect((await api(who, 'PUT', '/push-consent', { version: '2026-11' })).status).toBe(200);
  if (options.email) expect((await api(who, 'PUT', '/email-address')).status).toBe(200);
}

async function channelsDrained(): Promise<void> {
  const { urgent, info, promotion, intake, urgentIntake, push, email } = runtime.queues;
  await pollUntil(() => [urgent, info, promotion, push, email, ...Object.values(intake), ...Object.values(urgentIntake)].every((queue) => queue.peekUndelayed().length === 0), POLL, 'queues empty');
}

const pushesTo = (token: string) => runtime.channels.sns.receivedBy(token);
const mailTo = (who: UserRef) => runtime.channels.ses.mailTo(emailOf(who));

describe('push', () => {
  it('a mention reaches the inbox, the socket and the registered device once, and no email; 3 publishes and a redriven DLQ copy push nothing more', async () => {
    // Prepare
    const alice = user('alice');
    const token = pushToken('a1');
    await setUp(alice, { tokens: [token], consent: true, email: true });
    const socket = await TestSocket.open(runtime.endpoints.ws, await tokenOf(alice));
    sockets.push(socket);
    const pushJobs: string[] = [];
    const stop = runtime.queues.push.onSend((message) => pushJobs.push(message.body));
    const mention = aMention({ recipients: ['alice'] });

    // Act
    await publish(events, 'mention.created', mention, mention, mention);
    await pollUntil(() => pushesTo(token).length >= 1, POLL, 'push received');
    await socket.waitFor('notification');
    await channelsDrained();
    stop();
    // An operator redrives a DLQ holding a copy of the job (e.g. after an outage): dedup holds.
    runtime.queues.push.deadLetterQueue!.send(pushJobs[0]!);
    const redrive = await redriveDeadLetterQueue(await localTarget(dataDir), 'PushDelivery-dlq');
    await channelsDrained();
    await sleep(300);

    // Assess
    const inbox = await inboxOf(runtime, alice);
    expect(inbox).toHaveLength(1);
    expect(socket.notificationIds()).toEqual([inbox[0]!.id]);
    expect(redrive.replayed).toBe(1);
    const pushes = pushesTo(token);
    expect(pushes).toHaveLength(1);
    expect(pushes[0]).toMatchObject({ title: 'Bob mentioned you', body: 'hey @alice' });
    expect((pushes[0]!.payload as Record<string, unknown>).notificationId).toBe(inbox[0]!.id);
    expect(pushes[0]!.attributes['AWS.SNS.MOBILE.APNS.COLLAPSE_ID']).toBe(inbox[0]!.id);
    expect(mailTo(alice)).toHaveLength(0);
  });

  it('no consent, no push (default-deny); consent withdrawn stops pushes at once', async () => {
    // Prepare
    const carol = user('carol');
    const token = pushToken('c1');
    await setUp(carol, { tokens: [token] });

    // Act
    await publish(events, 'mention.created', aMention({ recipients: ['carol'] }));
    await pollUntil(async () => (await inboxOf(runtime, carol)).length === 1, POLL, 'inbox item');
    await channelsDrained();
    await setUp(carol, { consent: true });
    await publish(events, 'mention.created', aMention({ recipients: ['carol'] }));
    await pollUntil(() => pushesTo(token).length === 1, POLL, 'push after consent');
    expect((await api(carol, 'DELETE', '/push-consent')).status).toBe(204);
    await publish(events, 'mention.created', aMention({ recipients: ['carol'] }));
    await pollUntil(async () => (await inboxOf(runtime, carol)).length === 3, POLL, 'third inbox item');
    await channelsDrained();
    await sleep(200);

    // Assess
    expect(pushesTo(token)).toHaveLength(1);
    expect((await api(carol, 'GET', '/devices')).body).toMatchObject({ pushConsent: null, items: [{ platform: 'apns', locale: 'en-GB' }] });
  });

  it('an invalid token is removed after the first failure and never sent to again; the other device still gets pushes', async () => {
    // Prepare
    const dave = user('dave');
    const [stale, fresh] = [pushToken('d1'), pushToken('d2')];
    await setUp(dave, { tokens: [stale, fresh], consent: true });
    expect((await call(runtime.endpoints.http, 'POST', '/_dev/push/invalid-token', { body: JSON.stringify({ token: stale }) })).status).toBe(204);
    const publishesBefore = runtime.channels.sns.publishes;

    // Act
    await publish(events, 'mention.created', aMention({ recipients: ['dave'] }));
    await pollUntil(() => pushesTo(fresh).length === 1, POLL, 'push to the valid device');
    await channelsDrained();
    await publish(events, 'mention.created', aMention({ recipients: ['dave'] }));
    await pollUntil(() => pushesTo(fresh).length === 2, POLL, 'second push');
    await channelsDrained();

    // Assess
    expect(pushesTo(stale)).toHaveLength(0);
    expect(runtime.channels.sns.publishes - publishesBefore).toBe(3);
    const devices = (await api(dave, 'GET', '/devices')).body as { items: { id: string }[] };
    expect(devices.items).toHaveLength(1);
    expect(runtime.channels.sns.devices().some((endpoint) => endpoint.token === stale)).toBe(false);
  });

  it('provider throttling leaves the job for a retry: the push arrives once', async () => {
    // Prepare
    const gina = user('gina');
    const token = pushToken('g1');
    await setUp(gina, { tokens: [token], consent: true });
    // Three throttled Publish calls: past the SDK's own retries (3 attempts), so the job itself is retried.
    runtime.channels.sns.throttle(3);

    // Act
    await publish(events, 'mention.created', aMention({ recipients: ['gina'] }));
    await pollUntil(() => pushesTo(token).length === 1, { attempts: 200, intervalMs: 25 }, 'push after the retry');
    await channelsDrained();

    // Assess
    expect(pushesTo(token)).toHaveLength(1);
  });
});

describe('the push rate limit counts messages sent, not attempts', () => {
  it('a mention retried because one device was throttled counts once: the next mention of the window is still pushed at once', async () => {
    // Prepare: a limit of 2 messages per minute and two devices; one device's Publish is throttled three
    // times, past the SDK's own retries (3 attempts), so the record fails and SQS redelivers it.
    const { runtime: limited, events: limitedEvents, dataDir: limitedDir } = await startE2eRuntime('channels-rate-e2e-', { queueVisibilityTimeoutMs: 500, channelRateLimitPerWindow: 2 });
    try {
      const owner = user('rita-rate');
      const [first, second] = [pushToken('r1'), pushToken('r2')];
      const register = async (body: unknown) => call(limited.endpoints.http, 'POST', '/devices', { token: await limited.secrets.issueToken(owner), body: JSON.stringify(body) });
      for (const token of [first, second]) expect((await register({ platform: 'apns', token })).status).toBe(201);
      expect((await call(limited.endpoints.http, 'PUT', '/push-consent', { token: await limited.secrets.issueToken(owner), body: JSON.stringify({ version: '1' }) })).status).toBe(200);
      limited.channels.sns.throttle(3);

      // Act: the first mention is sent to one device, retried after the visibility timeout for the other.
      await publish(limitedEvents, 'mention.created', aMention({ recipients: [owner.userId] }));
      await pollUntil(() => limited.channels.sns.receivedBy(first).length === 1 && limited.channels.sns.receivedBy(second).length === 1, POLL, 'first mention on both devices');
      await publish(limitedEvents, 'mention.created', aMention({ recipients: [owner.userId], data: { postId: 'p-2', excerpt: 'second' } }));
      await pollUntil(() => limited.channels.sns.receivedBy(first).length === 2, POLL, 'second mention pushed at once');

      // Assess: one message each, not a retry counted twice and the second held for the minute's digest.
      expect(limited.channels.sns.receivedBy(first).map((push) => push.body)).toEqual(['hey @alice', 'second']);
      expect(limited.scheduler.list().filter((schedule) => schedule.targetArn === limited.queues.push.arn)).toEqual([]);
    } finally {
      await stopE2eRuntime({ runtime: limited, events: limitedEvents, dataDir: limitedDir });
    }
  });
});

describe('a push token belongs to one user', () => {
  it('moves to the user who registers it last (even in another tenant): the previous owner loses the device, its pushes and any way to delete the endpoint', async () => {
    // Prepare: a phone registered by ann (acme), who signs out; ben (globex) signs in on the same phone.
    const ann = user('ann-moved');
    const ben: UserRef = { tenantId: 'globex', userId: 'ben-moved' };
    const token = pushToken('m1');
    await setUp(ann, { tokens: [token], consent: true });
    await setUp(ben, { consent: true });
    const annDevice = ((await api(ann, 'GET', '/devices')).body as { items: { id: string }[] }).items[0]!.id;

    // Act
    const registered = await api(ben, 'POST', '/devices', { platform: 'apns', token });
    await publish(events, 'mention.created', aMention({ recipients: [ann.userId] }));
    await pollUntil(async () => (await inboxOf(runtime, ann)).length === 1, POLL, "ann's inbox item");
    await channelsDrained();
    const annDelete = await api(ann, 'DELETE', `/devices/${annDevice}`);
    await publish(events, 'mention.created', aMention({ tenantId: 'globex', recipients: [ben.userId] }));
    await pollUntil(() => pushesTo(token).length >= 1, POLL, "ben's push");
    await channelsDrained();

    // Assess
    expect(registered.status).toBe(201);
    expect(((await api(ann, 'GET', '/devices')).body as { items: unknown[] }).items).toEqual([]);
    expect(((await api(ben, 'GET', '/devices')).body as { items: { id: string }[] }).items.map((device) => device.id)).toEqual([annDevice]);
    const endpoints = runtime.channels.sns.devices().filter((endpoint) => endpoint.token === token);
    expect(endpoints).toHaveLength(1);
    expect(JSON.parse(endpoints[0]!.customUserData)).toEqual({ tenantId: 'globex', userId: 'ben-moved' });
    expect(annDelete.status).toBe(404);
    // Only ben's mention reached the phone; ann's stayed in her inbox.
    expect(pushesTo(token).map((push) => push.body)).toEqual(['hey @alice']);
    expect(pushesTo(token)).toHaveLength(1);
  });

  it("lets the previous owner's DELETE of a device it still lists (registered twice before this fix) leave the new owner's endpoint alone", async () => {
    // Prepare: both users list the device, as data written before a token had one owner; the endpoint names cleo, the last to register.
    const dan = user('dan-legacy');
    const cleo = user('cleo-legacy');
    const token = pushToken('l1');
    await setUp(dan, { tokens: [token], consent: true });
    await setUp(cleo, { consent: true });
    const device = ((await api(dan, 'GET', '/devices')).body as { items: { id: string }[] }).items[0]!;
    const stored = await runtime.documentClient.send(new GetCommand({ TableName: runtime.dynamo.tableNames.graph, Key: { pk: keys.channelStatePartition('acme', dan.userId), sk: keys.deviceSortKey(device.id) } }));
    await runtime.documentClient.send(new PutCommand({ TableName: runtime.dynamo.tableNames.graph, Item: { ...stored.Item, pk: keys.channelStatePartition('acme', cleo.userId) } }));
    const endpoint = runtime.channels.sns.devices().find((candidate) => candidate.token === token)!;
    runtime.channels.sns.setCustomUserData(endpoint.endpointArn, JSON.stringify(cleo));

    // Act
    const danDelete = await api(dan, 'DELETE', `/devices/${device.id}`);
    await publish(events, 'mention.created', aMention({ recipients: [cleo.userId] }));
    await pollUntil(() => pushesTo(token).length >= 1, POLL, "cleo's push");

    // Assess
    expect(danDelete.status).toBe(204);
    expect(((await api(dan, 'GET', '/devices')).body as { items: unknown[] }).items).toEqual([]);
    expect(runtime.channels.sns.devices().filter((candidate) => candidate.token === token)).toHaveLength(1);
    expect(pushesTo(token)).toHaveLength(1);
  });
});

describe('email', () => {
  it('a comment burst becomes one digest email with a one-click unsubscribe that is honoured at once', async () => {
    // Prepare
    const erin = user('erin');
    await setUp(erin, { email: true });

    // Act
    await publish(events, 'comment.created', aComment('erin'), aComment('erin'), aComment('erin'), aComment('erin'));
    await pollUntil(() => mailTo(erin).length >= 1, POLL, 'digest email');
    await channelsDrained();
    await sleep(500);
    const [digest] = mailTo(erin);
    const unsubscribeUrl = /<([^>]+)>/.exec(digest!.headers['List-Unsubscribe']!)![1]!;
    const unsubscribe = await fetch(unsubscribeUrl, { method: 'POST', body: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    await publish(events, 'comment.created', aComment('erin'));
    await pollUntil(async () => (await inboxOf(runtime, erin)).length === 5, POLL, 'fifth inbox item');
    await channelsDrained();
    await sleep(600);

    // Assess
    expect(mailTo(erin)).toHaveLength(1);
    expect(digest).toMatchObject({ subject: '4 new notifications', headers: { 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' } });
    expect(digest!.text).toContain('Bob commented on your post');
    expect(unsubscribe.status).toBe(200);
    expect(await unsubscribe.json()).toEqual({ unsubscribed: 'comment.created' });
    // A forged link changes nothing (its last character changed: to 'E' when it already is 'A', or the link would be the same one 1 time in 16).
    const token = decodeURIComponent(unsubscribeUrl.split('token=')[1]!);
    const forged = `${token.slice(0, -1)}${token.endsWith('A') ? 'E' : 'A'}`;
    expect((await call(runtime.endpoints.http, 'POST', `/unsubscribe?token=${encodeURIComponent(forged)}`)).status).toBe(404);
  });
});

describe('quiet hours', () => {
  it('hold the push and the email, not the inbox item', async () => {
    // Prepare
    const frank = user('frank');
    const token = pushToken('f1');
    await setUp(frank, { tokens: [token], consent: true, email: true });
    const clock = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString().slice(11, 16);
    await putPreferences(runtime, frank, { timeZone: 'UTC', quietHours: { start: clock(-3_600_000), end: clock(3_600_000) } });

    // Act
    await publish(events, 'mention.created', aMention({ recipients: ['frank'], priority: 'info' }));
    await publish(events, 'comment.created', aComment('frank'));
    await pollUntil(async () => (await inboxOf(runtime, frank)).length === 2, POLL, 'inbox items');
    await channelsDrained();
    await sleep(700);

    // Assess
    expect(pushesTo(token)).toHaveLength(0);
    expect(mailTo(frank)).toHaveLength(0);
    const held = runtime.scheduler.list().filter((schedule) => schedule.targetArn === runtime.queues.push.arn || schedule.targetArn === runtime.queues.email.arn);
    expect(held.map((schedule) => schedule.targetArn).sort()).toEqual([runtime.queues.email.arn, runtime.queues.push.arn]);
    expect(held.every((schedule) => schedule.atMs > Date.now() + 3_000_000)).toBe(true);
  });
});

describe('devices API', () => {
  it('validates input, caps devices at 20 and only ever touches the caller own devices', async () => {
    // Prepare
    const hugo = user('hugo');
    const ivan = user('ivan');

    // Act
    const bad = await api(hugo, 'POST', '/devices', { platform: 'symbian', token: pushToken('h0') });
    const extra = await api(hugo, 'POST', '/devices', { platform: 'fcm', token: pushToken('h0'), __proto__: { admin: true }, admin: true });
    for (let index = 0; index < 20; index += 1) expect((await api(hugo, 'POST', '/devices', { platform: 'fcm', token: pushToken(`h${index}x`) })).status).toBe(201);
    const again = await api(hugo, 'POST', '/devices', { platform: 'fcm', token: pushToken('h0x') });
    const tooMany = await api(hugo, 'POST', '/devices', { platform: 'fcm', token: pushToken('h21x') });
    const hugosDevice = ((await api(hugo, 'GET', '/devices')).body as { items: { id: string }[] }).items[0]!.id;
    const foreignDelete = await api(ivan, 'DELETE', `/devices/${hugosDevice}`);
    const badId = await api(ivan, 'DELETE', '/devices/..%2F..%2Fx');
    const noToken = await call(runtime.endpoints.http, 'GET', '/devices');

    // Assess
    expect(bad.status).toBe(400);
    expect(extra.status).toBe(400);
    expect(again.status).toBe(200);
    expect(tooMany.status).toBe(409);
    expect(foreignDelete.status).toBe(404);
    expect(badId.status).toBe(400);
    expect(noToken.status).toBe(401);
    expect(((await api(hugo, 'GET', '/devices')).body as { items: unknown[] }).items).toHaveLength(20);
    expect((await api(hugo, 'DELETE', `/devices/${hugosDevice}`)).status).toBe(204);
  });
});

describe('dev recordings (the demo page\'s phone and mailbox)', () => {
  it("GET /_dev/push and /_dev/mail answer the caller's own devices and mail only; no valid token 401", async () => {
    // Prepare: gus gets a push and an email; hal has neither.
    const [gus, hal] = [user('gus'), user('hal')];
    const token = pushToken('gus1');
    await setUp(gus, { tokens: [token], consent: true, email: true });
    await publish(events, 'mention.created', aMention({ recipients: ['gus'] }));
    await publish(events, 'comment.created', aComment('gus'));
    await pollUntil(() => pushesTo(token).length === 1 && mailTo(gus).length === 1, POLL, 'push and email to gus');
    const dev = async (path: string, who?: UserRef, bearer?: string) => call(runtime.endpoints.http, 'GET', path, bearer !== undefined ? { token: bearer } : who ? { token: await tokenOf(who) } : {});

    // Act
    const [gusPush, gusMail, halPush, halMail] = [await dev('/_dev/push', gus), await dev('/_dev/mail', gus), await dev('/_dev/push', hal), await dev('/_dev/mail', hal)];
    const refused = [await dev('/_dev/push'), await dev('/_dev/mail'), await dev('/_dev/push', undefined, 'not-a-token'), await dev('/_dev/mail', undefined, 'not-a-token')].map((answer) => answer.status);

    // Assess
    const devices = (gusPush.body as { devices: { token: string; customUserData: string }[] }).devices;
    expect(devices.map((device) => device.token)).toEqual([token]);
    expect(devices.every((device) => device.customUserData === JSON.stringify(gus))).toBe(true);
    const mails = (gusMail.body as { mails: { to: string[] }[] }).mails;
    expect(mails.length).toBeGreaterThanOrEqual(1);
    expect(mails.every((mail) => mail.to.includes(emailOf(gus)))).toBe(true);
    expect((halPush.body as { devices: unknown[] }).devices).toEqual([]);
    expect((halMail.body as { mails: unknown[] }).mails).toEqual([]);
    expect(refused).toEqual([401, 401, 401, 401]);
  });
});
