/**
 * SMS end to end on the local runtime (issue 31): real PutEvents, the fan-out putting the job on the
 * SMS queue, the consumer sending through the real `@aws-sdk/client-pinpoint-sms-voice-v2` to the
 * local End User Messaging SMS stand-in (SigV4-checked), and an inbound STOP through the stand-in's
 * inbound topic to the sms-inbound function. A mention reaches a verified, opted-in number once
 * (a redelivered event sends nothing more) and never after STOP; a user who did not opt in gets
 * nothing; `PUT /sms` takes the number only from a verified token claim.
 */
import { request as httpRequest } from 'node:http';
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoSmsOptOutList } from '../../src/adapters/dynamo/sms-records.js';
import { SMS_KEYWORD_ANSWERS_DEFAULT } from '../../src/core/channels/sms.js';
import type { UserRef } from '../../src/core/model/user.js';
import type { Clock } from '../../src/core/ports/clock.js';
import { wallClockAt } from '../../src/core/preferences/time-zones.js';
import type { LocalRuntime } from '../../src/local/runtime.js';
import { aMention } from '../support/events.js';
import { call } from '../support/http.js';
import { pollUntil } from '../support/poll-until.js';
import { inboxOf, outOfMidnight, publish, putPreferences, sleep, startE2eRuntime, stopE2eRuntime } from '../support/schedules-e2e.js';

const POLL = { attempts: 400, intervalMs: 50 };
const user = (userId: string): UserRef => ({ tenantId: 'acme', userId });
const PHONES: Record<string, string> = { ana: '+14155550101', ben: '+14155550102', cy: '+14155550103', dan: '+14155550104', eve: '+14155550105', fay: '+14155550106', gil: '+14155550107' };
const pad = (value: number) => String(value).padStart(2, '0');

let dataDir: string;
let runtime: LocalRuntime;
let events: EventBridgeClient;
/** The runtime's clock: the wall clock plus an offset a test moves to the end of a quiet-hours window instead of waiting. */
let clockOffsetMs = 0;
const clock: Clock = { nowMs: () => Date.now() + clockOffsetMs };

beforeAll(async () => {
  await outOfMidnight();
  // The per-user spend guard at 4 texts a day (the local setting SMS_DAILY_LIMIT_PER_USER); the channels' rate limit
  // (which counts a message before the number's opt-out is read) above what one test sends in a minute.
  ({ dataDir, runtime, events } = await startE2eRuntime('sms-e2e-', { channelBatchWindowMs: 50, smsDailyLimitPerUser: 4, channelRateLimitPerWindow: 20 }, { clock }));
}, 180_000);

afterAll(async () => {
  await stopE2eRuntime({ dataDir, runtime, events });
});

/** A request with a token carrying the user's verified phone number (`withPhone: false`: a token without one). */
async function api(who: UserRef, method: string, path: string, body?: unknown, withPhone = true) {
  const phone = withPhone ? PHONES[who.userId] : undefined;
  const token = await runtime.secrets.issueToken({ ...who, ...(phone ? { phoneNumber: phone } : {}) });
  return call(runtime.endpoints.http, method, path, { token, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
}

/** Mentions by SMS switched on (off by default for the type). */
async function smsForMentions(who: UserRef): Promise<void> {
  await putPreferences(runtime, who, { timeZone: 'UTC', channels: { 'mention.created': { sms: true } } });
}

/** The notification texts a user's number received (not the service's keyword responses). */
const textsTo = (who: UserRef) => runtime.channels.sms.textsTo(PHONES[who.userId]!).filter((text) => !text.keywordResponse);

async function mentionSettled(who: UserRef, count: number): Promise<void> {
  await pollUntil(async () => (await inboxOf(runtime, who)).length === count, POLL, `${count} inbox items of ${who.userId}`);
  await pollUntil(() => runtime.queues.sms.peekUndelayed().length === 0 && runtime.queues.urgent.peek().length === 0, POLL, 'sms queue drained');
  await sleep(300);
}

describe('SMS: End User Messaging SMS through the local stand-in', () => {
  it('reaches a verified, opted-in number once, never after STOP; nothing without the opt-in', { timeout: 60_000 }, async () => {
    // Prepare: ana opts in with her verified number; ben switches SMS on for mentions but never opts in.
    const [ana, ben] = [user('ana'), user('ben')];
    await Promise.all([smsForMentions(ana), smsForMentions(ben)]);
    const optIn = await api(ana, 'PUT', '/sms', { version: '2026-11' });
    expect(optIn.status).toBe(200);
    expect((optIn.body as { sms: { phoneNumber: string } }).sms.phoneNumber).toBe(PHONES.ana);

    // Act: a mention to both, then the same event again (a producer retry).
    const first = aMention({ recipients: ['ana', 'ben'], data: { postId: 'p1', excerpt: 'see this' } });
    await publish(events, 'mention.created', first);
    await pollUntil(() => textsTo(ana).length === 1, POLL, 'a text to ana');
    await publish(events, 'mention.created', first);
    await mentionSettled(ana, 1);

    // Assess: one text to ana's number, from the origination number; nothing to ben.
    expect(textsTo(ana)).toHaveLength(1);
    expect(textsTo(ana)[0]!.body).toContain('mentioned you: see this');
    expect(textsTo(ben)).toEqual([]);

    // Act: ana texts STOP; the inbound topic's subscriber opts her number out; a second mention follows.
    const stop = await call(runtime.endpoints.http, 'POST', '/_dev/sms/inbound', { body: JSON.stringify({ from: PHONES.ana, body: 'stop' }) });
    expect(stop.status).toBe(200);
    await publish(events, 'mention.created', aMention({ recipients: ['ana'], data: { postId: 'p2', excerpt: 'and this' } }));
    await mentionSettled(ana, 2);

    // Assess: still the one text; the inbox has both mentions; the number is on the system's own opt-out list (not only the service's).
    expect(textsTo(ana)).toHaveLength(1);
    expect(await new DynamoSmsOptOutList(runtime.documentClient, runtime.dynamo.tableNames.idempotency).isOptedOut(PHONES.ana!)).toBe(true);
  });

  it('START after STOP: texts again; YES (no opt-in keyword of the number) through DeleteOptedOutNumber, refused by the service within 30 days; UNSTOP; HELP answered by the service', { timeout: 90_000 }, async () => {
    // Prepare: fay opts in and gets mentions by text.
    const fay = user('fay');
    await smsForMentions(fay);
    expect((await api(fay, 'PUT', '/sms', { version: '2026-11' })).status).toBe(200);
    let mentions = 0;
    /** A mention to fay, settled: how many texts her number has then. */
    const mention = async () => {
      mentions += 1;
      await publish(events, 'mention.created', aMention({ recipients: ['fay'], data: { postId: `f${mentions}`, excerpt: `number ${mentions}` } }));
      await mentionSettled(fay, mentions);
      return textsTo(fay).length;
    };
    const fromPhone = async (body: string) => {
      expect((await call(runtime.endpoints.http, 'POST', '/_dev/sms/inbound', { body: JSON.stringify({ from: PHONES.fay, body }) })).status).toBe(200);
      // Each word at its own instant of the runtime's clock (the order of a number's words).
      await sleep(5);
    };
    const optedOut = async () => ({ service: runtime.channels.sms.isOptedOut(PHONES.fay!), ours: await new DynamoSmsOptOutList(runtime.documentClient, runtime.dynamo.tableNames.idempotency).isOptedOut(PHONES.fay!) });

    // Act and assess, word by word: [text from the phone, opted out afterwards (on both lists), the texts of the phone after one more mention (none: no mention)].
    const steps: [string, boolean, number | undefined][] = [
      ['STOP', true, 1],
      // START: an opt-in keyword of the number: the service takes it off its list, the function off ours.
      ['Start', false, 2],
      // "Yes, stop": neither word acts (an opt-in keyword must be alone; it does not begin with an opt-out keyword).
      ['Yes, stop', false, undefined],
      // "stop please" begins with STOP: out on both.
      ['stop please', true, undefined],
      // YES: not a keyword of the number, so the service keeps it listed; the function takes it off with DeleteOptedOutNumber.
      ['YES', false, 3],
      // STOP, then YES again within 30 days: the service refuses to remove it again; still out on both, nothing sent.
      ['STOP', true, undefined],
      ['yes', true, 3],
      // UNSTOP: an opt-in keyword of the number (not limited by the 30 days): in again on both.
      ['UNSTOP', false, 4],
      // HELP: answered by the service with the number's keyword response; nothing changes.
      ['help', false, undefined],
    ];
    expect(await mention()).toBe(1);
    for (const [body, out, texts] of steps) {
      await fromPhone(body);
      expect({ body, ...(await optedOut()) }).toEqual({ body, service: out, ours: out });
      if (texts !== undefined) expect({ body, texts: await mention() }).toEqual({ body, texts });
    }

    // The service's keyword responses reached the phone: STOP x3 (stop please included), START, UNSTOP, HELP.
    const responses = runtime.channels.sms.textsTo(PHONES.fay!).filter((text) => text.keywordResponse).map((text) => text.body);
    expect(responses).toEqual([SMS_KEYWORD_ANSWERS_DEFAULT.stop, SMS_KEYWORD_ANSWERS_DEFAULT.start, SMS_KEYWORD_ANSWERS_DEFAULT.stop, SMS_KEYWORD_ANSWERS_DEFAULT.stop, SMS_KEYWORD_ANSWERS_DEFAULT.start, SMS_KEYWORD_ANSWERS_DEFAULT.help]);
    expect(textsTo(fay).map((text) => text.body.split(': ').pop())).toEqual(['number 1', 'number 3', 'number 4', 'number 6']);
  });

  it('a text for a user in quiet hours is held and sent once when they end, never twice', { timeout: 120_000 }, async () => {
    // Prepare: dan opts in, switches mentions by text on, and is in quiet hours (UTC) ending 1 to 2 minutes ahead of the runtime's clock.
    const dan = user('dan');
    const endMs = Math.ceil((clock.nowMs() + 60_000) / 60_000) * 60_000;
    const hhmm = (ms: number) => `${pad(wallClockAt(ms, 'UTC').hour)}:${pad(wallClockAt(ms, 'UTC').minute)}`;
    await putPreferences(runtime, dan, { timeZone: 'UTC', quietHours: { start: hhmm(endMs - 180_000), end: hhmm(endMs) }, channels: { 'mention.created': { sms: true } } });
    expect((await api(dan, 'PUT', '/sms', { version: '2026-11' })).status).toBe(200);
    const held = () => runtime.scheduler.list().filter((schedule) => schedule.targetArn === runtime.queues.sms.arn);

    // Act: an info mention (an urgent one bypasses quiet hours), published twice (a producer retry).
    const mention = aMention({ recipients: ['dan'], priority: 'info', data: { postId: 'p-quiet', excerpt: 'after hours' } });
    await publish(events, 'mention.created', mention);
    await mentionSettled(dan, 1);
    await publish(events, 'mention.created', mention);
    await mentionSettled(dan, 1);
    const during = { texts: textsTo(dan).length, held: held().map((schedule) => schedule.atMs) };
    const release = held()[0]!.payload;
    clockOffsetMs += endMs - clock.nowMs();
    runtime.scheduler.rearm();
    await pollUntil(() => textsTo(dan).length === 1, POLL, 'the held text sent when quiet hours end');
    await pollUntil(() => held().length === 0 && runtime.queues.sms.peekUndelayed().length === 0, POLL, 'the release consumed');
    // Scheduler delivers at least once: the same release again; and the same event once more.
    runtime.queues.sms.send(release);
    await publish(events, 'mention.created', mention);
    await mentionSettled(dan, 1);

    // Assess: nothing during the quiet hours (one hold, at their end), then exactly one text.
    expect(during).toEqual({ texts: 0, held: [endMs] });
    expect(textsTo(dan)).toHaveLength(1);
    expect(textsTo(dan)[0]!.body).toContain('mentioned you: after hours');
  });

  it('the per-user spend guard of the local setting: the fifth text of the day is dropped', { timeout: 60_000 }, async () => {
    // Prepare
    const eve = user('eve');
    await smsForMentions(eve);
    expect((await api(eve, 'PUT', '/sms', { version: '2026-11' })).status).toBe(200);

    // Act: five mentions, one after the other
    for (const postId of ['q1', 'q2', 'q3', 'q4', 'q5']) {
      await publish(events, 'mention.created', aMention({ recipients: ['eve'], data: { postId, excerpt: postId } }));
      await mentionSettled(eve, Number(postId.slice(1)));
    }

    // Assess: four texts (the first four), the fifth dropped
    expect(textsTo(eve).map((text) => text.body.split(': ').pop())).toEqual(['q1', 'q2', 'q3', 'q4']);
  });

  it('takes the number from a verified phone_number claim only: none, or one in the body, is a 400', async () => {
    const cy = user('cy');
    const unverified = await api(cy, 'PUT', '/sms', { version: '2026-11' }, false);
    expect(unverified.status).toBe(400);
    expect((unverified.body as { error: { code: string } }).error.code).toBe('no_verified_phone_number');
    const smuggled = await api(cy, 'PUT', '/sms', { version: '2026-11', phoneNumber: '+14155559999' });
    expect(smuggled.status).toBe(400);
    const proto = await api(cy, 'PUT', '/sms', JSON.parse('{"version":"2026-11","__proto__":{"phoneNumber":"+14155559999"}}'));
    expect(proto.status).toBe(400);
    const noVersion = await api(cy, 'PUT', '/sms', {});
    expect(noVersion.status).toBe(400);
    expect((await api(cy, 'DELETE', '/sms')).status).toBe(204);
  });

  it('GET /_dev/sms (the demo phone) answers the texts of the caller\'s own verified number only; no valid token 401; a rebound Host 403; the stand-in refuses unsigned calls', async () => {
    // Prepare: ana has texts (a mention, the STOP response); gil has none; a token whose phone claim was edited.
    const texts = (token?: string) => call(runtime.endpoints.http, 'GET', '/_dev/sms', token === undefined ? {} : { token });
    const anaToken = await runtime.secrets.issueToken({ ...user('ana'), phoneNumber: PHONES.ana! });
    const [header, payload, signature] = anaToken.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8')) as Record<string, unknown>;
    const edited = `${header}.${Buffer.from(JSON.stringify({ ...claims, phone_number: PHONES.fay })).toString('base64url')}.${signature}`;

    // Act
    const own = await texts(anaToken);
    const none = await texts(await runtime.secrets.issueToken({ ...user('gil'), phoneNumber: PHONES.gil! }));
    const noPhone = await texts(await runtime.secrets.issueToken(user('ana')));
    const refused = [await texts(), await texts('not-a-token'), await texts(edited)].map((answer) => answer.status);
    const rebound = await new Promise<number>((resolve, reject) => {
      const url = new URL('/_dev/sms', runtime.endpoints.http);
      httpRequest(url, { headers: { host: `evil.example:${url.port}`, authorization: `Bearer ${anaToken}` } }, (res) => resolve(res.statusCode ?? 0)).on('error', reject).end();
    });
    const unsigned = await call(runtime.endpoints.http, 'POST', '/_aws/sms', { headers: { 'x-amz-target': 'PinpointSMSVoiceV2.DeleteOptedOutNumber', 'content-type': 'application/x-amz-json-1.0' }, body: JSON.stringify({ OptOutListName: 'Default', OptedOutNumber: PHONES.ana }) });

    // Assess
    const body = own.body as { phoneNumber: string; optedOut: boolean; texts: { to: string; body: string }[] };
    expect(body.phoneNumber).toBe(PHONES.ana);
    expect(body.optedOut).toBe(true);
    expect(body.texts.length).toBeGreaterThanOrEqual(2);
    expect(body.texts.every((text) => text.to === PHONES.ana)).toBe(true);
    expect(none.body).toEqual({ phoneNumber: PHONES.gil, optedOut: false, texts: [] });
    expect(noPhone.body).toEqual({ phoneNumber: null, optedOut: false, texts: [] });
    expect(refused).toEqual([401, 401, 401]);
    expect(rebound).toBe(403);
    expect(unsigned.status).toBe(403);
    expect(runtime.channels.sms.isOptedOut(PHONES.ana!)).toBe(true);
  });

  it('refuses an inbound message that is not from an E.164 number (dev route)', async () => {
    const answer = await call(runtime.endpoints.http, 'POST', '/_dev/sms/inbound', { body: JSON.stringify({ from: '0155 5550', body: 'STOP' }) });
    expect(answer.status).toBe(400);
  });
});
