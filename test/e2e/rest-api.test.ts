/**
 * The REST contract (CONTRACT.md) over HTTP against the local runtime started in-process.
 * Inbox data is seeded through the repositories (publishing events comes with the pipeline).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GraphRepository } from '../../src/adapters/dynamo/graph-repository.js';
import { InboxRepository } from '../../src/adapters/dynamo/inbox-repository.js';
import { encodeCursor } from '../../src/core/read/cursor.js';
import type { UserRef } from '../../src/core/model/user.js';
import { startLocalRuntime, type LocalRuntime } from '../../src/local/runtime.js';
import { localSettingsFromEnv } from '../../src/local/settings.js';
import { aNotification, alice, aliceOfGlobex, bob, feedItemsOnAllShards, idsOf, inboxItemsFor, newestFirst, SECOND } from '../support/fixtures.js';
import { seedFollowingCeleb } from '../support/dynamo.js';
import { call, freePort, isErrorBody, type CountsBody, type HttpAnswer, type PageBody } from '../support/http.js';
import { tokenFromForeignKey, unsignedToken, withTamperedClaims } from '../support/tokens.js';

let runtime: LocalRuntime;
let dataDir: string;
let base: string;
const tokens = new Map<string, string>();
const tokenOf = (user: UserRef) => tokens.get(`${user.tenantId}/${user.userId}`)!;
/** Seeded in the last hour so nothing is expired; alice 30 own + 4 feed, bob 5, globex/alice 3. */
const start = Date.now() - 60 * 60 * SECOND;
const aliceOwn = Array.from({ length: 30 }, (_, i) => aNotification(start + i * 10 * SECOND, { recipient: 'alice', eventId: `a-${i}` }));
const celebrityFeed = Array.from({ length: 4 }, (_, i) =>
  aNotification(start + 5 * SECOND + i * 60 * SECOND, { recipient: 'feed', eventId: `star-${i}`, type: 'post.published', actor: { id: 'star' } }),
);
const bobOwn = Array.from({ length: 5 }, (_, i) => aNotification(start + 7 * SECOND + i * SECOND, { recipient: 'bob', eventId: `b-${i}` }));
const globexAliceOwn = Array.from({ length: 3 }, (_, i) => aNotification(start + 9 * SECOND + i * SECOND, { tenantId: 'globex', recipient: 'alice', eventId: `g-${i}` }));
const aliceView = newestFirst([...aliceOwn, ...celebrityFeed]);
const carol: UserRef = { tenantId: 'acme', userId: 'carol' };

const get = (path: string, user: UserRef = alice) => call(base, 'GET', path, { token: tokenOf(user) });
const post = (path: string, user: UserRef = alice, body?: string) => call(base, 'POST', path, { token: tokenOf(user), body });
const page = (answer: HttpAnswer) => answer.body as PageBody;
const counts = (answer: HttpAnswer) => answer.body as CountsBody;

function expectError(answer: HttpAnswer, status: number, code?: string) {
  expect(answer.status).toBe(status);
  expect(isErrorBody(answer.body)).toBe(true);
  if (code !== undefined && isErrorBody(answer.body)) expect(answer.body.error.code).toBe(code);
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'notifications-e2e-'));
  runtime = await startLocalRuntime({ ...localSettingsFromEnv({}), port: 0, wsPort: await freePort(), dataDir });
  base = runtime.endpoints.http;
  const inbox = new InboxRepository(runtime.documentClient, runtime.dynamo.tableNames.inbox);
  await inbox.writeInboxItems([
    ...inboxItemsFor(alice, aliceOwn),
    ...inboxItemsFor(bob, bobOwn),
    ...inboxItemsFor(aliceOfGlobex, globexAliceOwn),
    ...feedItemsOnAllShards('acme', 'star', runtime.settings.feedShards, celebrityFeed),
  ]);
  await seedFollowingCeleb(runtime.documentClient, runtime.dynamo.tableNames.graph, alice, 'star', start - 60 * SECOND);
  expect(await new GraphRepository(runtime.documentClient, runtime.dynamo.tableNames.graph).listFollowedCelebrities(alice)).toHaveLength(1);
  for (const user of [alice, bob, aliceOfGlobex, carol]) tokens.set(`${user.tenantId}/${user.userId}`, await runtime.secrets.issueToken(user));
});
afterAll(async () => {
  await runtime?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('GET /notifications', () => {
  it('returns the newest 20 by default, own inbox merged with the followed celebrity, in the contract shape', async () => {
    // Act
    const answer = await get('/notifications');

    // Assess
    expect(answer.status).toBe(200);
    expect(idsOf(page(answer).items)).toEqual(idsOf(aliceView.slice(0, 20)));
    expect(typeof page(answer).nextCursor).toBe('string');
    const first = aliceView[0]!;
    expect(page(answer).items[0]).toEqual({
      id: first.id,
      type: first.type,
      createdAt: first.createdAt,
      read: false,
      seen: false,
      actor: first.actor,
      title: first.title,
      body: first.body,
      data: first.data,
    });
  });

  it('paginates with nextCursor to the end with no duplicate and no gap', async () => {
    // Prepare
    const seen: string[] = [];
    let cursor: string | null = null;

    // Act
    do {
      const answer = await get(`/notifications?limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(answer.status).toBe(200);
      seen.push(...idsOf(page(answer).items));
      cursor = page(answer).nextCursor;
    } while (cursor !== null && seen.length < 1000);

    // Assess
    expect(seen).toEqual(idsOf(aliceView));
  });

  it('filters by type', async () => {
    // Act
    const answer = await get('/notifications?type=post.published');

    // Assess
    expect(answer.status).toBe(200);
    expect(idsOf(page(answer).items)).toEqual(idsOf(newestFirst(celebrityFeed)));
  });

  it('since: only newer notifications, newest first, paginated the same way', async () => {
    // Prepare
    const since = aliceView[9]!.id;

    // Act
    const first = await get(`/notifications?since=${since}&limit=5`);
    const second = await get(`/notifications?limit=5&cursor=${encodeURIComponent(page(first).nextCursor!)}`);

    // Assess
    expect(idsOf(page(first).items)).toEqual(idsOf(aliceView.slice(0, 5)));
    expect(idsOf(page(second).items)).toEqual(idsOf(aliceView.slice(5, 9)));
    expect(page(second).nextCursor).toBeNull();
  });

  it.each(['0', '101', 'abc', '-1', '1.5', ''])('limit=%j is a 400 naming the field', async (limit) => {
    // Act
    const answer = await get(`/notifications?limit=${limit}`);

    // Assess
    expectError(answer, 400);
    expect(answer.text).toContain('limit');
  });

  it('limit 1 and 100 are accepted', async () => {
    expect(page(await get('/notifications?limit=1')).items).toHaveLength(1);
    expect(page(await get('/notifications?limit=100')).items).toHaveLength(aliceView.length);
  });

  it('an unknown query field is a 400', async () => {
    expectError(await get('/notifications?limit=5&userId=bob'), 400, 'validation_error');
  });

  it.each(['not-a-ulid', 'T#acme#U#bob', '01ARZ3NDEKTSV4RRFFQ69G5FA'])('since=%j that is not an id is a 400', async (since) => {
    expectError(await get(`/notifications?since=${encodeURIComponent(since)}`), 400);
  });

  it('a malformed, truncated, re-signed or tampered cursor is a 400 invalid_cursor', async () => {
    // Prepare
    const real = page(await get('/notifications?limit=5')).nextCursor!;
    const cursors = [
      'garbage',
      'a.b.c',
      real.slice(0, real.length - 4),
      real.slice(4),
      encodeCursor({ before: aliceView[4]!.id }, 'some-other-secret'),
      `${Buffer.from(JSON.stringify({ v: 1, b: aliceView[0]!.id })).toString('base64url')}.${real.split('.')[1]}`,
    ];

    // Act
    const answers = await Promise.all(cursors.map((cursor) => get(`/notifications?cursor=${encodeURIComponent(cursor)}`)));

    // Assess
    for (const answer of answers) expectError(answer, 400, 'invalid_cursor');
  });

  it('an over-long cursor is a 400', async () => {
    expectError(await get(`/notifications?cursor=${'a'.repeat(600)}.b`), 400);
  });
});

describe('GET /notifications/counts', () => {
  it('counts unread and unseen over own inbox and feeds', async () => {
    // Act
    const answer = await get('/notifications/counts', carol);
    const aliceCounts = await get('/notifications/counts');

    // Assess
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ unread: 0, unseen: 0, capped: false, newestId: null });
    expect(aliceCounts.body).toEqual({ unread: aliceView.length, unseen: aliceView.length, capped: false, newestId: aliceView[0]!.id });
  });

  it('a query field is a 400', async () => {
    expectError(await get('/notifications/counts?userId=bob'), 400);
  });
});

describe('read state over HTTP (on bob, so the listing tests above keep alice unread)', () => {
  it('seen-all, read one, read-all: each reflected in counts and flags', async () => {
    // Act + Assess: seen-all
    const seenAll = await post('/notifications/seen-all', bob);
    expect(seenAll.status).toBe(200);
    expect(Date.parse((seenAll.body as { seenAt: string }).seenAt)).not.toBeNaN();
    expect(counts(await get('/notifications/counts', bob))).toEqual({ unread: 5, unseen: 0, capped: false, newestId: bobOwn[4]!.id });

    // read one
    const target = bobOwn[2]!.id;
    const readOne = await post(`/notifications/${target}/read`, bob);
    expect(readOne.status).toBe(204);
    expect(readOne.text).toBe('');
    expect(counts(await get('/notifications/counts', bob)).unread).toBe(4);
    const flags = page(await get('/notifications', bob)).items.map((item) => [item.id === target, item.read]);
    expect(flags.every(([isTarget, read]) => isTarget === read)).toBe(true);

    // read-all
    const readAll = await post('/notifications/read-all', bob);
    expect(readAll.status).toBe(200);
    expect(Math.abs(Date.parse((readAll.body as { readAt: string }).readAt) - Date.now())).toBeLessThan(60_000);
    expect(counts(await get('/notifications/counts', bob))).toEqual({ unread: 0, unseen: 0, capped: false, newestId: null });
    expect(page(await get('/notifications', bob)).items.every((item) => item.read && item.seen)).toBe(true);
  });

  it('read-all and seen-all refuse a body with fields, and a body that is not JSON', async () => {
    expectError(await post('/notifications/read-all', carol, '{"userId":"alice"}'), 400);
    expectError(await post('/notifications/seen-all', carol, '{"upTo":"x"}'), 400);
    expectError(await post('/notifications/read-all', carol, '{not json'), 400, 'invalid_json');
  });

  it('reading an unknown id is a 404; a malformed id is a 400', async () => {
    expectError(await post(`/notifications/${aNotification(Date.now(), { eventId: 'nope' }).id}/read`, carol), 404, 'not_found');
    expectError(await post('/notifications/not-an-id/read', carol), 400);
    expectError(await post('/notifications/T%23acme%23U%23alice/read', carol), 400);
  });

  it('a path that cannot be percent-decoded is a 4xx, not a 500', async () => {
    // Act
    const answer = await post('/notifications/%E0%A4%A/read', carol);

    // Assess
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.status).toBeLessThan(500);
  });

  it('an unknown route is a 404 with an error body', async () => {
    expectError(await get('/notifications/counts/extra'), 404);
    expectError(await call(base, 'DELETE', '/notifications', { token: tokenOf(alice) }), 404);
  });
});

describe('CORS (a browser app on another origin)', () => {
  const origin = 'https://app.example.com';

  it('answers a preflight without a token, naming the headers and methods the API takes', async () => {
    // Act
    const answer = await fetch(`${base}/notifications/${aliceOwn[0]!.id}/read`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' },
    });

    // Assess
    expect(answer.status).toBe(204);
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
    expect(answer.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
    expect(answer.headers.get('access-control-allow-methods')).toContain('POST');
  });

  it('puts the allow-origin header on answers and on the 401 of a missing token', async () => {
    // Act
    const ok = await fetch(`${base}/notifications/counts`, { headers: { origin, authorization: `Bearer ${tokenOf(alice)}` } });
    const refused = await fetch(`${base}/notifications/counts`, { headers: { origin } });

    // Assess
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe('*');
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe('*');
  });
});

describe('authentication', () => {
  const paths: [string, string][] = [
    ['GET', '/notifications'],
    ['GET', '/notifications/counts'],
    ['POST', '/notifications/read-all'],
    ['POST', '/notifications/seen-all'],
    ['POST', `/notifications/${aliceOwn[0]!.id}/read`],
  ];

  it.each(paths)('%s %s without a token is a 401', async (method, path) => {
    expectError(await call(base, method, path), 401, 'unauthorized');
  });

  it('expired, foreign-key, foreign-key with our kid, alg none, tampered claims, garbage and non-Bearer tokens are 401 on every route', async () => {
    // Prepare
    const expired = await runtime.secrets.issueToken({ ...alice, expiresAt: Math.floor(Date.now() / 1000) - 60 });
    const ourKid = runtime.secrets.jwks.keys[0]!.kid;
    const bad = [
      expired,
      await tokenFromForeignKey(alice),
      await tokenFromForeignKey(alice, ourKid),
      unsignedToken(alice),
      withTamperedClaims(tokenOf(bob), { sub: 'alice' }),
      'not.a.jwt',
    ];

    // Act
    const answers = await Promise.all(bad.flatMap((token) => paths.map(([method, path]) => call(base, method, path, { token }))));
    const basic = await call(base, 'GET', '/notifications', { headers: { authorization: `Basic ${tokenOf(alice)}` } });

    // Assess
    for (const answer of [...answers, basic]) expectError(answer, 401, 'unauthorized');
    expect(counts(await get('/notifications/counts')).unread).toBe(aliceView.length);
  });

  it('a token with an identifier the keys refuse (a tenant over 256 characters) is a 401', async () => {
    // Act
    const token = await runtime.secrets.issueToken({ tenantId: 'a'.repeat(257), userId: 'x' });

    // Assess
    expectError(await call(base, 'GET', '/notifications', { token }), 401);
  });
});

describe('isolation between users and tenants', () => {
  it('each user sees only their own inbox; the same user id in another tenant is another inbox', async () => {
    // Act
    const bobPage = page(await get('/notifications?limit=100', bob));
    const globexPage = page(await get('/notifications?limit=100', aliceOfGlobex));

    // Assess
    expect(idsOf(bobPage.items)).toEqual(idsOf(newestFirst(bobOwn)));
    expect(idsOf(globexPage.items)).toEqual(idsOf(newestFirst(globexAliceOwn)));
  });

  it("alice's cursor used by another user yields only that user's data", async () => {
    // Prepare: a cursor positioned inside alice's inbox, after bob's and globex alice's newest items.
    const aliceCursor = page(await get('/notifications?limit=2')).nextCursor!;

    // Act
    const asBob = page(await get(`/notifications?cursor=${encodeURIComponent(aliceCursor)}&limit=100`, bob));
    const asGlobex = page(await get(`/notifications?cursor=${encodeURIComponent(aliceCursor)}&limit=100`, aliceOfGlobex));
    const asCarol = page(await get(`/notifications?cursor=${encodeURIComponent(aliceCursor)}&limit=100`, carol));

    // Assess
    expect(idsOf(asBob.items)).toEqual(idsOf(newestFirst(bobOwn)));
    expect(idsOf(asGlobex.items)).toEqual(idsOf(newestFirst(globexAliceOwn)));
    expect(asCarol.items).toEqual([]);
  });

  it("another user cannot read or mark alice's notifications, and their read-all does not touch alice", async () => {
    // Act
    const bobReadsAlices = await post(`/notifications/${aliceOwn[0]!.id}/read`, bob);
    const globexReadsAlices = await post(`/notifications/${aliceOwn[1]!.id}/read`, aliceOfGlobex);
    const globexReadsFeed = await post(`/notifications/${celebrityFeed[0]!.id}/read`, aliceOfGlobex);
    await post('/notifications/read-all', aliceOfGlobex);
    await post('/notifications/read-all', carol);

    // Assess
    expectError(bobReadsAlices, 404);
    expectError(globexReadsAlices, 404);
    expectError(globexReadsFeed, 404);
    expect(counts(await get('/notifications/counts'))).toEqual({ unread: aliceView.length, unseen: aliceView.length, capped: false, newestId: aliceView[0]!.id });
    expect(page(await get('/notifications?limit=100')).items.some((item) => item.read || item.seen)).toBe(false);
  });

  it('identity in the query, path or headers is ignored or refused, never used', async () => {
    // Act
    const viaQuery = await get('/notifications?tenantId=acme&userId=alice', carol);
    const viaHeader = await call(base, 'GET', '/notifications', { token: tokenOf(carol), headers: { 'x-user-id': 'alice', 'x-tenant-id': 'acme' } });

    // Assess
    expectError(viaQuery, 400);
    expect(viaHeader.status).toBe(200);
    expect(page(viaHeader).items).toEqual([]);
  });
});
