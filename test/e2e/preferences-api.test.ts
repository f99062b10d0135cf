/** `GET/PUT /preferences` over HTTP against the local runtime started in-process. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../src/core/model/keys.js';
import type { Preferences } from '../../src/core/preferences/preferences.js';
import type { UserRef } from '../../src/core/model/user.js';
import { startLocalRuntime, type LocalRuntime } from '../../src/local/runtime.js';
import { localSettingsFromEnv } from '../../src/local/settings.js';
import { alice, aliceOfGlobex, bob } from '../support/fixtures.js';
import { call, isErrorBody, type HttpAnswer } from '../support/http.js';

let runtime: LocalRuntime;
let dataDir: string;
const tokens = new Map<UserRef, string>();

const getPreferences = (user: UserRef) => call(runtime.endpoints.http, 'GET', '/preferences', { token: tokens.get(user) });
const putPreferences = (user: UserRef, body: unknown) => call(runtime.endpoints.http, 'PUT', '/preferences', { token: tokens.get(user), body: JSON.stringify(body) });

function expectFieldError(answer: HttpAnswer, field: string) {
  expect(answer.status).toBe(400);
  expect(isErrorBody(answer.body)).toBe(true);
  if (!isErrorBody(answer.body)) return;
  expect(answer.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: field })]));
  expect(answer.body.error.message).toContain(field);
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'preferences-e2e-'));
  runtime = await startLocalRuntime({ ...localSettingsFromEnv({}), port: 0, wsPort: 0, dataDir });
  for (const user of [alice, bob, aliceOfGlobex]) tokens.set(user, await runtime.secrets.issueToken(user));
});

afterAll(async () => {
  await runtime?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('GET /preferences', () => {
  it('answers the defaults for a user who never saved any', async () => {
    // Act
    const answer = await getPreferences(bob);

    // Assess
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ timeZone: 'UTC', quietHours: null, mutedTypes: [], liveDelivery: {}, updatedAt: null });
  });

  it('answers 409 for a saved document the runtime cannot read (a zone unknown to its tzdata), and a PUT repairs it', async () => {
    // Prepare
    const dave: UserRef = { tenantId: 'acme', userId: 'dave' };
    tokens.set(dave, await runtime.secrets.issueToken(dave));
    await runtime.documentClient.send(
      new PutCommand({
        TableName: runtime.dynamo.tableNames.graph,
        Item: { ...keys.preferences('acme', 'dave'), timeZone: 'Mars/Olympus_Mons', quietHours: null, mutedTypes: [], liveDelivery: {}, updatedAt: '2026-01-01T00:00:00.000Z' },
      }),
    );

    // Act
    const broken = await getPreferences(dave);
    await putPreferences(dave, { timeZone: 'UTC' });
    const repaired = await getPreferences(dave);

    // Assess
    expect(broken.status).toBe(409);
    expect(isErrorBody(broken.body) && broken.body.error.code).toBe('preferences_unreadable');
    expect(repaired.status).toBe(200);
  });

  it('refuses a request without a valid token', async () => {
    expect((await call(runtime.endpoints.http, 'GET', '/preferences')).status).toBe(401);
    expect((await call(runtime.endpoints.http, 'PUT', '/preferences', { token: 'not-a-jwt', body: '{}' })).status).toBe(401);
  });
});

describe('PUT /preferences', () => {
  it('saves the whole document and GET reads it back; other users and tenants are untouched', async () => {
    // Prepare
    const document = { timeZone: 'Asia/Kolkata', quietHours: { start: '22:00', end: '07:00' }, mutedTypes: ['post.published'], liveDelivery: { 'comment.created': false } };

    // Act
    const saved = await putPreferences(alice, document);
    const read = await getPreferences(alice);

    // Assess
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject(document);
    expect(Date.parse((saved.body as Preferences).updatedAt!)).not.toBeNaN();
    expect(read.body).toEqual(saved.body);
    expect((await getPreferences(aliceOfGlobex)).body).toMatchObject({ timeZone: 'UTC', mutedTypes: [] });
  });

  it('rejects an invalid time zone with a 400 naming the field, and keeps the saved document', async () => {
    // Prepare
    await putPreferences(bob, { timeZone: 'Europe/Berlin' });

    // Act
    const answers = [await putPreferences(bob, { timeZone: 'Mars/Olympus_Mons' }), await putPreferences(bob, { timeZone: '+05:30' })];

    // Assess
    for (const answer of answers) expectFieldError(answer, 'timeZone');
    expect((await getPreferences(bob)).body).toMatchObject({ timeZone: 'Europe/Berlin' });
  });

  it('rejects malformed quiet hours, unknown types and unknown fields naming the field', async () => {
    expectFieldError(await putPreferences(bob, { timeZone: 'UTC', quietHours: { start: '22:00', end: '7am' } }), 'quietHours.end');
    expectFieldError(await putPreferences(bob, { timeZone: 'UTC', mutedTypes: ['nope.created'] }), 'mutedTypes.0');
    expectFieldError(await putPreferences(bob, { timeZone: 'UTC', mutedTypes: ['follow.deleted'] }), 'mutedTypes.0');
    expectFieldError(await putPreferences(bob, { timeZone: 'UTC', liveDelivery: { 'nope.created': true } }), 'liveDelivery.nope.created');
    const unknownField = await putPreferences(bob, { timeZone: 'UTC', theme: 'dark' });
    expect(unknownField.status).toBe(400);
    const notJson = await call(runtime.endpoints.http, 'PUT', '/preferences', { token: tokens.get(bob), body: '{"timeZone":' });
    expect(notJson.status).toBe(400);
  });

  it('refuses a __proto__ or other unknown key in every preferences map with a 400 naming it, and keeps the saved document', async () => {
    // Prepare: raw JSON text, since a JS object literal would turn `__proto__` into the prototype instead of a key.
    await putPreferences(bob, { timeZone: 'Europe/Paris', liveDelivery: { 'mention.created': false } });
    const putRaw = (body: string) => call(runtime.endpoints.http, 'PUT', '/preferences', { token: tokens.get(bob), body });

    // Act
    const answers: [HttpAnswer, string][] = [
      [await putRaw('{"timeZone":"UTC","liveDelivery":{"__proto__":false}}'), 'liveDelivery.__proto__'],
      [await putRaw('{"timeZone":"UTC","liveDelivery":{"mention.created":true,"__proto__":{"polluted":true}}}'), 'liveDelivery.__proto__'],
      [await putRaw('{"timeZone":"UTC","channels":{"__proto__":{"push":false}}}'), 'channels.__proto__'],
      [await putRaw('{"timeZone":"UTC","channels":{"mention.created":{"__proto__":true}}}'), 'channels.mention.created.__proto__'],
      [await putRaw('{"timeZone":"UTC","channels":{"follow.created":{"sms":true}}}'), 'channels.follow.created.sms'],
      [await putRaw('{"timeZone":"UTC","channels":{"nope.created":{"push":true}}}'), 'channels.nope.created'],
      [await putRaw('{"timeZone":"UTC","__proto__":{"mutedTypes":["mention.created"]}}'), '__proto__'],
    ];

    // Assess
    for (const [answer, field] of answers) expectFieldError(answer, field);
    expect((await getPreferences(bob)).body).toMatchObject({ timeZone: 'Europe/Paris', liveDelivery: { 'mention.created': false } });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
