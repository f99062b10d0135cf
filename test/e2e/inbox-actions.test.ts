/**
 * Inbox actions end to end on the local runtime (REST, WebSocket, bus, scheduler): archive,
 * archive-all-read (one write for 10,000 items), unread below the read mark, seen, delete,
 * retraction, snooze, bulk, filters with cursors, action links, celebrity-feed items.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InboxRepository } from '../../src/adapters/dynamo/inbox-repository.js';
import { ReadStateRepository } from '../../src/adapters/dynamo/read-state-repository.js';
import { RequestMeter } from '../../src/adapters/dynamo/request-meter.js';
import type { StoredNotification } from '../../src/core/model/notification.js';
import type { UserRef } from '../../src/core/model/user.js';
import { startLocalRuntime, type LocalRuntime } from '../../src/local/runtime.js';
import { localSettingsFromEnv } from '../../src/local/settings.js';
import { aMention } from '../support/events.js';
import { aNotification, feedItemsOnAllShards, idsOf, inboxItemsFor, newestFirst, SECOND } from '../support/fixtures.js';
import { seedFollowingCeleb } from '../support/dynamo.js';
import { call, freePort, type CountsBody, type HttpAnswer, type PageBody } from '../support/http.js';
import { eventsClientOf, pipelineDrained, publish } from '../support/schedules-e2e.js';
import { TestSocket } from '../support/ws-client.js';
import { DEPLOYED_BUNDLES } from '../support/deployed.js';

let runtime: LocalRuntime;
let dataDir: string;
let base: string;
let inbox: InboxRepository;
let readState: ReadStateRepository;
let events: EventBridgeClient;
const meter = new RequestMeter();
const sockets: TestSocket[] = [];
let userSequence = 0;
/** Seeded in the last hour, so nothing is expired and nothing is ahead of now. */
const start = Date.now() - 60 * 60 * SECOND;

function aUser(): UserRef {
  userSequence += 1;
  return { tenantId: 'acme', userId: `actions-${userSequence}` };
}

const token = (user: UserRef) => runtime.secrets.issueToken(user);
const get = async (user: UserRef, path: string) => call(base, 'GET', path, { token: await token(user) });
const send = async (user: UserRef, method: string, path: string, body?: unknown) =>
  call(base, method, path, { token: await token(user), ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
const page = (answer: HttpAnswer) => answer.body as PageBody;
const counts = async (user: UserRef, query = '') => (await get(user, `/notifications/counts${query}`)).body as CountsBody;
const listIds = async (user: UserRef, query = 'limit=100') => idsOf(page(await get(user, `/notifications?${query}`)).items);

/** `count` own notifications of `user`, `spacingMs` apart (a second by default), oldest first. */
async function seed(user: UserRef, count: number, overrides: (index: number) => Partial<StoredNotification> & { type?: string } = () => ({}), spacingMs = SECOND): Promise<StoredNotification[]> {
  const items = Array.from({ length: count }, (_, index) =>
    aNotification(start + index * spacingMs, { recipient: user.userId, eventId: `${user.userId}-${index}`, ...overrides(index) }),
  );
  await inbox.writeInboxItems(inboxItemsFor(user, items));
  return items;
}

async function openSocket(user: UserRef): Promise<TestSocket> {
  const socket = await TestSocket.open(runtime.endpoints.ws, await token(user));
  sockets.push(socket);
  return socket;
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'notifications-actions-'));
  runtime = await startLocalRuntime({ ...localSettingsFromEnv({}), port: 0, wsPort: await freePort(), dataDir });
  base = runtime.endpoints.http;
  inbox = new InboxRepository(runtime.documentClient, runtime.dynamo.tableNames.inbox);
  readState = new ReadStateRepository(runtime.documentClient, runtime.dynamo.tableNames.readMarks);
  events = eventsClientOf(runtime);
  meter.attach(runtime.documentClient);
});
afterAll(async () => {
  await Promise.all(sockets.map((socket) => socket.close()));
  events?.destroy();
  await runtime?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('archive', () => {
  it('archive hides one from the list and counts, archived=true shows it, unarchive brings it back; other devices get item_state', async () => {
    // Prepare
    const user = aUser();
    const items = newestFirst(await seed(user, 5));
    const otherDevice = await openSocket(user);
    const target = items[1]!.id;

    // Act
    const archived = await send(user, 'POST', `/notifications/${target}/archive`);

    // Assess
    expect(archived.status).toBe(204);
    expect(await listIds(user)).toEqual(idsOf(items).filter((id) => id !== target));
    const archive = page(await get(user, '/notifications?archived=true'));
    expect(idsOf(archive.items)).toEqual([target]);
    expect(archive.items[0]!.archived).toBe(true);
    expect(await counts(user)).toEqual({ unread: 4, unseen: 4, capped: false, newestId: items[0]!.id });
    const [message] = await otherDevice.waitFor('item_state');
    expect(message).toEqual({ type: 'item_state', action: 'archive', ids: [target], unread: 4, unseen: 4, capped: false, newestId: items[0]!.id });

    expect((await send(user, 'POST', `/notifications/${target}/unarchive`)).status).toBe(204);
    expect(await listIds(user)).toEqual(idsOf(items));
    expect(await counts(user)).toEqual({ unread: 5, unseen: 5, capped: false, newestId: items[0]!.id });
  });

  // Counts the requests of the runtime's own clients: the deployed bundles (npm run test:deployed) build their own.
  it.skipIf(DEPLOYED_BUNDLES)('archive-all-read of 10,000 read notifications is ONE write request; a later arrival stays in the list', async () => {
    // Prepare
    const user = aUser();
    const items = await seed(user, 10_000, () => ({}), 100);
    expect((await send(user, 'POST', '/notifications/read-all')).status).toBe(200);
    meter.reset();

    // Act
    const answer = await send(user, 'POST', '/notifications/archive-read');

    // Assess
    expect(answer.status).toBe(200);
    expect(typeof (answer.body as { archivedAt: string }).archivedAt).toBe('string');
    const requests = meter.snapshot();
    expect(requests.byCommand.UpdateItemCommand).toBe(1);
    expect((requests.byCommand.PutItemCommand ?? 0) + (requests.byCommand.BatchWriteItemCommand ?? 0) + (requests.byCommand.DeleteItemCommand ?? 0)).toBe(0);
    expect(await listIds(user)).toEqual([]);
    expect(page(await get(user, '/notifications?archived=true&limit=3')).items.map((item) => item.id)).toEqual(idsOf(newestFirst(items).slice(0, 3)));
    await new Promise((resolve) => setTimeout(resolve, 5));
    const later = aNotification(Date.now(), { recipient: user.userId, eventId: 'later' });
    await inbox.writeInboxItems(inboxItemsFor(user, [later]));
    expect(await listIds(user)).toEqual([later.id]);
    expect(await counts(user)).toEqual({ unread: 1, unseen: 1, capped: false, newestId: later.id });
  });
});

describe('unread, seen, delete', () => {
  it('mark unread after read-all shows it unread and counts it; read-all again reads it', async () => {
    // Prepare
    const user = aUser();
    const items = newestFirst(await seed(user, 3));
    await send(user, 'POST', '/notifications/read-all');
    const target = items[2]!.id;

    // Act
    const answer = await send(user, 'POST', `/notifications/${target}/unread`);

    // Assess
    expect(answer.status).toBe(204);
    const shown = page(await get(user, '/notifications')).items;
    expect(shown.map((item) => [item.id, item.read])).toEqual([
      [items[0]!.id, true],
      [items[1]!.id, true],
      [target, false],
    ]);
    expect((await counts(user)).unread).toBe(1);
    expect(idsOf(page(await get(user, '/notifications?read=false')).items)).toEqual([target]);
    await send(user, 'POST', '/notifications/read-all', { upTo: items[0]!.id });
    expect((await counts(user)).unread).toBe(0);
    // And a single read after an unread reads it too.
    await send(user, 'POST', `/notifications/${target}/unread`);
    expect((await counts(user)).unread).toBe(1);
    await send(user, 'POST', `/notifications/${target}/read`);
    expect((await counts(user)).unread).toBe(0);
  });

  it('mark seen one lowers unseen only; delete hides it everywhere; another user id is 404', async () => {
    // Prepare
    const user = aUser();
    const other = aUser();
    const items = newestFirst(await seed(user, 3));
    const foreign = (await seed(other, 1))[0]!;

    // Act
    await send(user, 'POST', `/notifications/${items[0]!.id}/seen`);
    const deleted = await send(user, 'DELETE', `/notifications/${items[1]!.id}`);

    // Assess
    expect(deleted.status).toBe(204);
    expect(await counts(user)).toEqual({ unread: 2, unseen: 1, capped: false, newestId: items[0]!.id });
    const shown = page(await get(user, '/notifications')).items;
    expect(shown.map((item) => [item.id, item.seen])).toEqual([
      [items[0]!.id, true],
      [items[2]!.id, false],
    ]);
    expect(await listIds(user, 'archived=true')).toEqual([]);
    expect((await send(user, 'DELETE', `/notifications/${foreign.id}`)).status).toBe(404);
    expect(await listIds(other)).toEqual([foreign.id]);
  });

  it('works on celebrity-feed items (the exception is keyed by id in the reader partition)', async () => {
    // Prepare
    const user = aUser();
    const star = `star-${user.userId}`;
    const feed = [aNotification(start + 2 * SECOND, { recipient: 'feed', eventId: `${star}-0`, type: 'post.published', actor: { id: star } })];
    await inbox.writeInboxItems(feedItemsOnAllShards('acme', star, runtime.settings.feedShards, feed));
    await seedFollowingCeleb(runtime.documentClient, runtime.dynamo.tableNames.graph, user, star, start - 60 * SECOND);
    const own = await seed(user, 1);

    // Act
    const archived = await send(user, 'POST', `/notifications/${feed[0]!.id}/archive`);

    // Assess
    expect(archived.status).toBe(204);
    expect(await listIds(user)).toEqual([own[0]!.id]);
    expect(await listIds(user, 'archived=true')).toEqual([feed[0]!.id]);
    expect((await counts(user)).unread).toBe(1);
  });
});

describe('bulk', () => {
  it('changes the caller\'s ids, names a foreign id and touches nothing of its owner', async () => {
    // Prepare
    const user = aUser();
    const other = aUser();
    const mine = newestFirst(await seed(user, 3));
    const theirs = (await seed(other, 1))[0]!;

    // Act
    const answer = await send(user, 'POST', '/notifications/bulk', { action: 'archive', ids: [...idsOf(mine), theirs.id] });

    // Assess
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ updated: idsOf(mine), notFound: [theirs.id] });
    expect(await listIds(user)).toEqual([]);
    expect(await listIds(other)).toEqual([theirs.id]);
    expect((await readState.readWindow(other, undefined, 100)).state.exceptions.size).toBe(0);
    expect((await readState.readWindow(user, undefined, 100)).state.exceptions.has(theirs.id)).toBe(false);
    expect((await send(user, 'POST', '/notifications/bulk', { action: 'archive', ids: Array.from({ length: 101 }, () => theirs.id) })).status).toBe(400);
    expect((await send(user, 'POST', '/notifications/bulk', { action: 'explode', ids: [theirs.id] })).status).toBe(400);
    expect((await send(user, 'POST', '/notifications/bulk', { action: 'read', ids: ['../etc'] })).status).toBe(400);
  });

  // Counts the requests of the runtime's own clients: the deployed bundles (npm run test:deployed) build their own.
  it.skipIf(DEPLOYED_BUNDLES)('bulk read of 100 ids is one lookup round (BatchGetItem of each id\'s item and exception, 100 keys a call) and 4 BatchWriteItems: at most 10 requests, not 100 gets and 100 puts', async () => {
    // Prepare
    const user = aUser();
    const items = await seed(user, 100);
    meter.reset();

    // Act
    const answer = await send(user, 'POST', '/notifications/bulk', { action: 'read', ids: idsOf(items) });

    // Assess
    expect(answer.status).toBe(200);
    expect((answer.body as { updated: string[] }).updated).toHaveLength(100);
    const requests = meter.snapshot();
    expect(requests.byCommand.BatchWriteItemCommand).toBe(4);
    expect(requests.byCommand.PutItemCommand ?? 0).toBe(0);
    expect(requests.byCommand.GetItemCommand ?? 0).toBeLessThanOrEqual(1);
    // About 200 keys (item and exception per id, the marks, the followed pack) in calls of at most 100.
    expect(requests.byCommand.BatchGetItemCommand ?? 0).toBeLessThanOrEqual(5);
    expect(requests.requests).toBeLessThanOrEqual(10);
    expect((await counts(user)).unread).toBe(0);
  });
});

describe('hostile input on the action routes', () => {
  const raw = async (user: UserRef, method: string, path: string, body: string) => call(base, method, path, { token: await token(user), body });

  it('bulk refuses prototype keys, deep or huge bodies and odd ids with a 400, and never touches another user\'s item', async () => {
    // Prepare
    const user = aUser();
    const other = aUser();
    const mine = (await seed(user, 1))[0]!;
    const theirs = (await seed(other, 1))[0]!;
    const deep = `${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}`;

    // Act
    const answers = await Promise.all([
      raw(user, 'POST', '/notifications/bulk', `{"__proto__":{"isAdmin":true},"action":"archive","ids":["${mine.id}"]}`),
      raw(user, 'POST', '/notifications/bulk', `{"constructor":{"prototype":{"polluted":1}},"action":"archive","ids":["${mine.id}"]}`),
      raw(user, 'POST', '/notifications/bulk', `{"action":"__proto__","ids":["${mine.id}"]}`),
      raw(user, 'POST', '/notifications/bulk', `{"action":"archive","ids":{"0":"${mine.id}","length":1}}`),
      raw(user, 'POST', '/notifications/bulk', deep),
      raw(user, 'POST', '/notifications/bulk', JSON.stringify({ action: 'archive', ids: Array.from({ length: 20_000 }, () => mine.id) })),
      send(user, 'POST', '/notifications/bulk', { action: 'archive', ids: [] }),
      send(user, 'POST', '/notifications/bulk', { action: 'archive', ids: ['constructor', '__proto__'] }),
      send(user, 'POST', '/notifications/bulk', { action: 'archive', ids: [`${mine.id}\u0000`, mine.id.toLowerCase(), `${mine.id}#READEX`, 7] }),
    ]);
    const foreignOnly = await send(user, 'POST', '/notifications/bulk', { action: 'delete', ids: [theirs.id] });

    // Assess
    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 400));
    expect(foreignOnly.status).toBe(200);
    expect(foreignOnly.body).toEqual({ updated: [], notFound: [theirs.id] });
    expect(await listIds(user)).toEqual([mine.id]);
    expect(await listIds(other)).toEqual([theirs.id]);
    expect((await readState.readWindow(other, undefined, 100)).state.exceptions.size).toBe(0);
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('snooze refuses an until in the past, too far ahead or not a date, prototype keys and odd ids; another user\'s id is 404', async () => {
    // Prepare
    const user = aUser();
    const other = aUser();
    const mine = (await seed(user, 1))[0]!;
    const theirs = (await seed(other, 1))[0]!;
    const soon = new Date(Date.now() + 60_000).toISOString();

    // Act
    const refused = await Promise.all([
      send(user, 'POST', `/notifications/${mine.id}/snooze`, { until: new Date(Date.now() - 60_000).toISOString() }),
      send(user, 'POST', `/notifications/${mine.id}/snooze`, { until: new Date(Date.now() + 31 * 86_400_000).toISOString() }),
      send(user, 'POST', `/notifications/${mine.id}/snooze`, { until: '+275760-09-13T00:00:00.000Z' }),
      send(user, 'POST', `/notifications/${mine.id}/snooze`, { until: 'tomorrow' }),
      send(user, 'POST', `/notifications/${mine.id}/snooze`, { until: '2026-02-30T25:61:00Z' }),
      send(user, 'POST', `/notifications/${mine.id}/snooze`, { until: Date.now() + 60_000 }),
      send(user, 'POST', `/notifications/${mine.id}/snooze`, {}),
      raw(user, 'POST', `/notifications/${mine.id}/snooze`, `{"until":"${soon}","__proto__":{"isAdmin":true}}`),
      raw(user, 'POST', `/notifications/${mine.id}/snooze`, `{"until":"${soon}","constructor":{"prototype":{"polluted":1}}}`),
      send(user, 'POST', '/notifications/constructor/snooze', { until: soon }),
      send(user, 'POST', '/notifications/__proto__/snooze', { until: soon }),
      send(user, 'POST', `/notifications/${encodeURIComponent(`${mine.id}#x`)}/snooze`, { until: soon }),
    ]);
    const foreign = await send(user, 'POST', `/notifications/${theirs.id}/snooze`, { until: soon });

    // Assess
    expect(refused.map((answer) => answer.status)).toEqual(refused.map(() => 400));
    expect(foreign.status).toBe(404);
    expect(await listIds(user)).toEqual([mine.id]);
    expect(await listIds(other)).toEqual([theirs.id]);
    expect((await readState.readWindow(user, undefined, 100)).state.exceptions.size).toBe(0);
  });

  it('list filters refuse prototype names, odd characters and too many values with a 400', async () => {
    // Prepare
    const user = aUser();
    await seed(user, 1);
    const queries = [
      'type=__proto__',
      'type=constructor,toString',
      'category=__proto__',
      'category=Social%00',
      'tags=__proto__',
      `tags=${Array.from({ length: 11 }, (_, index) => `t${index}`).join(',')}`,
      `type=${Array.from({ length: 21 }, (_, index) => `t${index}.created`).join(',')}`,
      `type=${'a'.repeat(5_000)}`,
      'type=',
      'tags=a,,b',
      '__proto__=1',
      'constructor=1',
    ];

    // Act
    const answers = await Promise.all(queries.map((query) => get(user, `/notifications?${query}`)));

    // Assess
    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 400));
  });
});

describe('filters', () => {
  it('read, type (several) and category combine with cursors that keep the filter: each match exactly once', async () => {
    // Prepare
    const user = aUser();
    const types = ['mention.created', 'comment.created', 'post.published'];
    const items = newestFirst(await seed(user, 30, (index) => ({ type: types[index % 3]!, eventId: `${user.userId}-f${index}` })));
    const readOnes = items.filter((_, index) => index % 4 === 0);
    await send(user, 'POST', '/notifications/bulk', { action: 'read', ids: idsOf(readOnes) });
    await send(user, 'POST', `/notifications/${items[1]!.id}/archive`);
    const expected = items.filter((item, index) => index !== 1 && index % 4 !== 0 && item.type !== 'post.published');

    // Act
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor === null ? 'read=false&type=mention.created,comment.created&limit=4' : `limit=4&cursor=${encodeURIComponent(cursor)}`;
      const answer = await get(user, `/notifications?${query}`);
      expect(answer.status).toBe(200);
      seen.push(...idsOf(page(answer).items));
      cursor = page(answer).nextCursor;
      pages += 1;
    } while (cursor !== null && pages < 50);

    // Assess
    expect(seen).toEqual(idsOf(expected));
    const social = items.filter((item, index) => index !== 1 && item.type === 'comment.created');
    expect(await listIds(user, 'category=social&limit=100')).toEqual(idsOf(social));
    const socialUnread = social.filter((item) => !readOnes.includes(item));
    expect(await counts(user, '?category=social')).toEqual({ unread: socialUnread.length, unseen: socialUnread.length, capped: false, newestId: idsOf(socialUnread).sort().at(-1) ?? null });
    expect(await listIds(user, 'category=nothing-here')).toEqual([]);
    expect((await get(user, '/notifications?read=maybe')).status).toBe(400);
  });
});

describe('action links', () => {
  it('shows an http(s) actionUrl and buttons from the type, and drops an unsafe one', async () => {
    // Prepare
    const user = aUser();
    const [safe, unsafe] = await seed(user, 2, (index) => ({
      data: { postId: 'p1', excerpt: 'x', url: index === 0 ? 'https://app.example/p/1' : 'javascript:alert(1)' },
    }));

    // Act
    const shown = page(await get(user, '/notifications')).items;

    // Assess
    const byId = new Map(shown.map((item) => [item.id, item]));
    expect(byId.get(safe!.id)!.actionUrl).toBe('https://app.example/p/1');
    expect(byId.get(safe!.id)!.actions).toEqual([
      { label: 'Open', url: 'https://app.example/p/1' },
      { label: 'Reply', actionId: 'reply' },
    ]);
    expect(byId.get(unsafe!.id)!.actionUrl).toBeUndefined();
    expect(byId.get(unsafe!.id)!.actions).toEqual([{ label: 'Reply', actionId: 'reply' }]);
  });
});

describe('retraction', () => {
  it('a retracted event vanishes from 3 recipients\' lists and counts, and their sockets get retracted', async () => {
    // Prepare
    const recipients = [aUser(), aUser(), aUser()];
    const devices = await Promise.all(recipients.map(openSocket));
    const mention = aMention({ recipients: recipients.map((user) => user.userId) });
    await publish(events, 'mention.created', mention);
    await pipelineDrained(runtime);
    const delivered = await Promise.all(devices.map(async (device) => (await device.waitFor('notification'))[0]!.notification.id));
    for (const [index, user] of recipients.entries()) expect(await listIds(user)).toEqual([delivered[index]]);

    // Act
    await publish(events, 'notification.retracted', { id: `retract-${mention.id}`, tenantId: 'acme', actor: { id: 'bob' }, recipients: mention.recipients!, data: { eventId: mention.id, type: 'mention.created' } });
    await pipelineDrained(runtime);

    // Assess
    for (const [index, user] of recipients.entries()) {
      expect(await listIds(user)).toEqual([]);
      expect(await counts(user)).toEqual({ unread: 0, unseen: 0, capped: false, newestId: null });
      expect((await devices[index]!.waitFor('retracted'))[0]).toEqual({ type: 'retracted', ids: [delivered[index]] });
    }
  });
});

describe('snooze', () => {
  it('snooze 2 s: gone now, then back on top as a new unread arrival, pushed live', async () => {
    // Prepare
    const user = aUser();
    const items = newestFirst(await seed(user, 3));
    await send(user, 'POST', '/notifications/read-all');
    const device = await openSocket(user);
    const target = items[1]!;

    // Act
    const answer = await send(user, 'POST', `/notifications/${target.id}/snooze`, { until: new Date(Date.now() + 2_000).toISOString() });

    // Assess
    expect(answer.status).toBe(200);
    expect(await listIds(user)).toEqual([items[0]!.id, items[2]!.id]);
    expect((await counts(user)).unread).toBe(0);
    const [pushed] = await device.waitFor('notification', 1, { attempts: 200, intervalMs: 25 });
    const comeback = pushed!.notification;
    expect(comeback.title).toBe(target.title);
    const shown = page(await get(user, '/notifications')).items;
    expect(shown[0]).toMatchObject({ id: comeback.id, read: false, title: target.title });
    expect(idsOf(shown)).toEqual([comeback.id, items[0]!.id, items[2]!.id]);
    expect((await counts(user)).unread).toBe(1);
    expect((await send(user, 'POST', `/notifications/${target.id}/snooze`, { until: new Date(Date.now() - 1_000).toISOString() })).status).toBe(400);
  });
});
