/**
 * Live delivery end to end (CONTRACT.md, WebSocket) against the local runtime started in-process:
 * producers publish with the real EventBridge SDK (PutEvents), clients are real `ws` sockets.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionRepository } from '../../src/adapters/dynamo/connection-repository.js';
import { idUpperBoundAt } from '../../src/core/model/ids.js';
import type { UserRef } from '../../src/core/model/user.js';
import { startLocalRuntime, type LocalRuntime } from '../../src/local/runtime.js';
import { localSettingsFromEnv } from '../../src/local/settings.js';
import { aMention, putEntry, uniqueEventId } from '../support/events.js';
import type { EventEnvelope } from '../../src/core/fanout/events.js';
import { call } from '../support/http.js';
import { pollUntil } from '../support/poll-until.js';
import { unsignedToken } from '../support/tokens.js';
import { RefusedUpgrade, TestSocket } from '../support/ws-client.js';

const INFO_WINDOW_MS = 400;
const QUEUE_POLL = { attempts: 300, intervalMs: 20 };

let runtime: LocalRuntime;
let dataDir: string;
let events: EventBridgeClient;
let connections: ConnectionRepository;
const sockets: TestSocket[] = [];

const user = (userId: string): UserRef => ({ tenantId: 'acme', userId });

async function connect(who: UserRef): Promise<TestSocket> {
  const socket = await TestSocket.open(runtime.endpoints.ws, await runtime.secrets.issueToken(who));
  sockets.push(socket);
  return socket;
}

async function publish(detailType: string, ...details: EventEnvelope[]): Promise<void> {
  const output = await events.send(new PutEventsCommand({ Entries: details.map((detail) => putEntry(detailType, detail)) }));
  expect(output.FailedEntryCount ?? 0).toBe(0);
}

/** Every queue of the pipeline is empty: each job has been consumed to the end. */
async function pipelineDrained(): Promise<void> {
  const { urgent, info, intake } = runtime.queues;
  await pollUntil(
    () => [urgent, info, ...Object.values(intake)].every((queue) => queue.peek().length === 0),
    QUEUE_POLL,
    'pipeline queues empty',
  );
}

async function refusal(token: string | undefined): Promise<number> {
  try {
    const socket = await TestSocket.open(runtime.endpoints.ws, token ?? '');
    await socket.close();
    return 101;
  } catch (error) {
    if (error instanceof RefusedUpgrade) return error.status;
    throw error;
  }
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'notifications-ws-e2e-'));
  // A short function timeout (visibility 6x it): a duplicate held back by an IN_PROGRESS idempotency record is retried within the poll.
  runtime = await startLocalRuntime({ ...localSettingsFromEnv({}), port: 0, wsPort: 0, dataDir, infoBatchWindowMs: INFO_WINDOW_MS, functionTimeoutMs: 500 });
  events = new EventBridgeClient({ endpoint: runtime.endpoints.events, region: 'us-east-1', credentials: { accessKeyId: 'any', secretAccessKey: 'any' } });
  connections = new ConnectionRepository(runtime.documentClient, runtime.dynamo.tableNames.connections);
});

afterAll(async () => {
  await Promise.all(sockets.map((socket) => socket.close()));
  events?.destroy();
  await runtime?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('WebSocket $connect', () => {
  it('refuses a missing, unsigned or expired token with 401 and accepts a valid one', async () => {
    // Prepare
    const expired = await runtime.secrets.issueToken({ ...user('alice'), expiresAt: Math.floor(Date.now() / 1000) - 60 });

    // Act
    const statuses = [await refusal(undefined), await refusal(unsignedToken(user('alice'))), await refusal(expired)];
    const valid = await connect(user('zed'));

    // Assess
    expect(statuses).toEqual([401, 401, 401]);
    expect(valid.isClosed).toBe(false);
    expect(await connections.listConnections(user('zed'))).toHaveLength(1);
  });

  it('answers {"action":"ping"} with {"type":"pong"} and removes the connection on close', async () => {
    // Prepare
    const who = user('pinger');
    const socket = await connect(who);

    // Act
    socket.send({ action: 'ping' });
    await socket.waitFor('pong');
    await socket.close();

    // Assess
    await pollUntil(async () => (await connections.listConnections(who)).length === 0, QUEUE_POLL, 'connection removed');
    expect(await connections.connectionsOf([who])).toEqual([]);
  });
});

describe('live pushes through PutEvents', () => {
  it('pushes an urgent notification once to each of two devices of the user', async () => {
    // Prepare
    const phone = await connect(user('alice'));
    const laptop = await connect(user('alice'));

    // Act
    await publish('mention.created', aMention({ recipients: ['alice'] }));
    const [onPhone] = await phone.waitFor('notification');
    await laptop.waitFor('notification');
    await pipelineDrained();

    // Assess
    expect(phone.ofType('notification')).toHaveLength(1);
    expect(laptop.ofType('notification')).toHaveLength(1);
    expect(laptop.ofType('notification')[0]!.notification).toEqual(onPhone!.notification);
    expect(onPhone!.notification).toMatchObject({ type: 'mention.created', read: false, seen: false, actor: { id: 'bob' } });
  });

  it('delivers an event published three times once per device', async () => {
    // Prepare
    const phone = await connect(user('bea'));
    const laptop = await connect(user('bea'));
    const mention = aMention({ recipients: ['bea'] });

    // Act
    await publish('mention.created', mention);
    await publish('mention.created', mention);
    await publish('mention.created', mention);
    await phone.waitFor('notification');
    await laptop.waitFor('notification');
    await pipelineDrained();

    // Assess
    expect(phone.notificationIds()).toHaveLength(1);
    expect(laptop.notificationIds()).toEqual(phone.notificationIds());
  });

  it('collapses info notifications of one batching window into one digest', async () => {
    // Prepare
    const socket = await connect(user('carol'));
    const comment = (n: number): EventEnvelope => ({
      id: uniqueEventId('comment'),
      tenantId: 'acme',
      actor: { id: `fan${n}`, name: `Fan ${n}` },
      recipients: ['carol'],
      data: { postId: 'p-1', commentId: `c-${n}`, excerpt: `comment ${n}` },
    });

    // Act
    await publish('comment.created', comment(1), comment(2), comment(3));
    const [digest] = await socket.waitFor('digest');
    await pipelineDrained();

    // Assess
    expect(digest).toMatchObject({ type: 'digest', count: 3 });
    expect(digest!.notifications.map((notification) => notification.body).sort()).toEqual(['comment 1', 'comment 2', 'comment 3']);
    expect(socket.ofType('notification')).toHaveLength(0);
    expect(socket.ofType('digest')).toHaveLength(1);
  });

  it('cleans up a connection that vanished without $disconnect on the next push (410) while the others receive', async () => {
    // Prepare
    const who = user('dave');
    const lost = await connect(who);
    const [lostId] = await connections.listConnections(who);
    const phone = await connect(who);
    const laptop = await connect(who);
    expect(runtime.live.gateway.dropWithoutDisconnect(lostId!)).toBe(true);
    expect(await connections.listConnections(who)).toHaveLength(3);

    // Act
    await publish('mention.created', aMention({ recipients: ['dave'] }));
    await phone.waitFor('notification');
    await laptop.waitFor('notification');

    // Assess
    await pollUntil(async () => !(await connections.listConnections(who)).includes(lostId!), QUEUE_POLL, 'stale connection removed');
    const live = (await connections.connectionsOf([who])).map((target) => target.connectionId);
    expect(live).toHaveLength(2);
    expect(live).not.toContain(lostId);
    expect(lost.ofType('notification')).toHaveLength(0);
  });

  it('syncs read-all from one device to the other', async () => {
    // Prepare
    const who = user('erin');
    const phone = await connect(who);
    const laptop = await connect(who);
    await publish('mention.created', aMention({ recipients: ['erin'] }), aMention({ recipients: ['erin'] }));
    await laptop.waitFor('notification', 2);

    // Act
    const answer = await call(runtime.endpoints.http, 'POST', '/notifications/read-all', { token: await runtime.secrets.issueToken(who) });

    // Assess
    expect(answer.status).toBe(200);
    const [onLaptop] = await laptop.waitFor('read_state');
    const [onPhone] = await phone.waitFor('read_state');
    const { readAt } = answer.body as { readAt: string };
    // A read-all without upTo marks every id of its millisecond: the mark, and what this change read.
    const mark = idUpperBoundAt(Date.parse(readAt));
    expect(onLaptop).toEqual({ type: 'read_state', readAt, seenAt: null, readMark: mark, seenMark: null, readUpTo: mark, unread: 0, unseen: 0, capped: false, newestId: null });
    expect(onPhone).toEqual(onLaptop);
  });
});
