import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConnectionRepository, HANDSHAKE_GRACE_SECONDS } from '../../src/adapters/dynamo/connection-repository.js';
import { DynamoDeliveryLedger } from '../../src/adapters/dynamo/delivery-ledger.js';
import { keys } from '../../src/core/model/keys.js';
import type { UserRef } from '../../src/core/model/user.js';
import { ManualClock, startTestDynamo, type TestDynamo } from '../support/dynamo.js';
import { alice, aliceOfGlobex, bob } from '../support/fixtures.js';
import { GetCommand } from '@aws-sdk/lib-dynamodb';

let db: TestDynamo;
let clock: ManualClock;
let connections: ConnectionRepository;

async function collect<T>(pages: AsyncIterable<T[]>): Promise<T[][]> {
  const all: T[][] = [];
  for await (const page of pages) all.push(page);
  return all;
}

beforeAll(async () => {
  db = await startTestDynamo();
});

afterAll(async () => {
  await db.close();
});

beforeEach(() => {
  clock = new ManualClock(Date.now());
  connections = new ConnectionRepository(db.client, db.dynamo.tableNames.connections, { clock, subscriberPageSize: 2 });
});

describe('ConnectionRepository', () => {
  it('registers a connection with its reverse item, presence and celebrity subscriptions, and removes all of it', async () => {
    // Prepare
    const user: UserRef = { tenantId: 'acme', userId: 'reg-user' };

    // Act
    await connections.registerConnection({ ...user, connectionId: 'regConn1=', celebrityIds: ['star', 'idol'] });
    const registered = {
      listed: await connections.listConnections(user),
      present: await connections.connectionsOf([user]),
      found: await connections.findConnection('regConn1='),
      starSubscribers: (await collect(connections.onlineSubscriberPages('acme', 'star'))).flat(),
    };
    await connections.removeConnectionById('regConn1=');

    // Assess
    expect(registered.listed).toEqual(['regConn1=']);
    expect(registered.present).toEqual([{ ...user, connectionId: 'regConn1=' }]);
    expect(registered.found).toEqual({ ...user, connectionId: 'regConn1=', celebrityIds: ['star', 'idol'], connectedAt: Math.floor(clock.nowMs() / 1000) });
    expect(registered.starSubscribers).toEqual([{ ...user, connectionId: 'regConn1=' }]);
    expect(await connections.listConnections(user)).toEqual([]);
    expect(await connections.connectionsOf([user])).toEqual([]);
    expect(await connections.findConnection('regConn1=')).toBeUndefined();
    expect((await collect(connections.onlineSubscriberPages('acme', 'idol'))).flat()).toEqual([]);
  });

  it('keeps the items expiring a little over 2 hours after connect', async () => {
    await connections.registerConnection({ ...bob, connectionId: 'ttlConn=', celebrityIds: [] });

    const item = await db.client.send(new GetCommand({ TableName: db.dynamo.tableNames.connections, Key: keys.connection(bob.tenantId, bob.userId, 'ttlConn=') }));

    const expiresInSeconds = (item.Item!.expiresAt as number) - Math.floor(clock.nowMs() / 1000);
    expect(expiresInSeconds).toBeGreaterThan(2 * 3600);
    expect(expiresInSeconds).toBeLessThanOrEqual(2 * 3600 + 15 * 60);
  });

  it('finds the connections of R users with ceil(R/100) BatchGetItem calls and no scan', async () => {
    // Prepare: 250 users, every other one online (two devices for the first)
    const users = Array.from({ length: 250 }, (_, i): UserRef => ({ tenantId: 'acme', userId: `batch-${i}` }));
    const online = users.filter((_, i) => i % 2 === 0);
    await Promise.all(online.map((user, i) => connections.registerConnection({ ...user, connectionId: `batch${i}=`, celebrityIds: [] })));
    await connections.registerConnection({ ...online[0]!, connectionId: 'batchExtra=', celebrityIds: [] });
    db.meter.reset();

    // Act
    const found = await connections.connectionsOf(users);

    // Assess
    expect(db.meter.snapshot().byCommand).toEqual({ BatchGetItemCommand: 3 });
    expect(found).toHaveLength(online.length + 1);
    expect(found.filter((target) => target.userId === 'batch-0').map((target) => target.connectionId).sort()).toEqual(['batch0=', 'batchExtra=']);
  });

  it('keeps tenants apart: the same user id in another tenant has its own presence', async () => {
    await connections.registerConnection({ ...alice, connectionId: 'acmeAlice=', celebrityIds: [] });
    await connections.registerConnection({ ...aliceOfGlobex, connectionId: 'globexAlice=', celebrityIds: [] });

    const found = await connections.connectionsOf([aliceOfGlobex]);

    expect(found).toEqual([{ ...aliceOfGlobex, connectionId: 'globexAlice=' }]);
  });

  it('ignores presence that expired but was not yet deleted by TTL', async () => {
    const user: UserRef = { tenantId: 'acme', userId: 'expired-user' };
    await connections.registerConnection({ ...user, connectionId: 'oldConn=', celebrityIds: [] });

    clock.advance(3 * 3600 * 1000);

    expect(await connections.connectionsOf([user])).toEqual([]);
  });

  it('removes a stale connection (410) from presence even without its reverse item', async () => {
    const user: UserRef = { tenantId: 'acme', userId: 'stale-user' };
    await connections.registerConnection({ ...user, connectionId: 'staleA=', celebrityIds: [] });
    await connections.registerConnection({ ...user, connectionId: 'staleB=', celebrityIds: [] });
    await connections.removeConnectionById('staleA=');
    await connections.registerConnection({ ...user, connectionId: 'staleA=', celebrityIds: [] });
    clock.advance((HANDSHAKE_GRACE_SECONDS + 1) * 1000);

    await connections.removeConnection({ ...user, connectionId: 'staleA=' });
    await connections.removeConnection({ ...user, connectionId: 'staleA=' });

    expect((await connections.connectionsOf([user])).map((target) => target.connectionId)).toEqual(['staleB=']);
  });

  it('keeps a connection that answers 410 while still within the handshake grace period', async () => {
    // Prepare: on AWS a post between $connect's registration and the handshake's end answers 410
    const user: UserRef = { tenantId: 'acme', userId: 'handshaking-user' };
    await connections.registerConnection({ ...user, connectionId: 'young=', celebrityIds: [] });

    // Act
    await connections.removeConnection({ ...user, connectionId: 'young=' });
    const afterEarly410 = await connections.connectionsOf([user]);
    clock.advance((HANDSHAKE_GRACE_SECONDS + 1) * 1000);
    await connections.removeConnection({ ...user, connectionId: 'young=' });

    // Assess: kept within the grace period, removed after it
    expect(afterEarly410.map((target) => target.connectionId)).toEqual(['young=']);
    expect(await connections.connectionsOf([user])).toEqual([]);
  });

  it('pages through a celebrity\'s online subscribers across shards', async () => {
    const fans = Array.from({ length: 7 }, (_, i): UserRef => ({ tenantId: 'acme', userId: `fan-${i}` }));
    await Promise.all(fans.map((fan, i) => connections.registerConnection({ ...fan, connectionId: `fan${i}=`, celebrityIds: ['megastar'] })));

    const pages = await collect(connections.onlineSubscriberPages('acme', 'megastar'));

    expect(pages.every((page) => page.length <= 2)).toBe(true);
    expect(pages.flat().map((target) => target.userId).sort()).toEqual(fans.map((fan) => fan.userId).sort());
  });
});

describe('DynamoDeliveryLedger', () => {
  it('claims a (notification, connection) pair once, again after a release, and again after expiry', async () => {
    // Prepare
    const ledger = new DynamoDeliveryLedger(db.client, db.dynamo.tableNames.idempotency, 60, clock);
    const id = '01JGZS0000AAAAAAAAAAAAAAAA';

    // Act
    const first = await ledger.claim(id, 'ledgerConn=');
    const second = await ledger.claim(id, 'ledgerConn=');
    const otherConnection = await ledger.claim(id, 'ledgerOther=');
    await ledger.release(id, 'ledgerConn=');
    const afterRelease = await ledger.claim(id, 'ledgerConn=');
    const whileHeld = await ledger.claim(id, 'ledgerConn=');
    clock.advance(61_000);
    const afterExpiry = await ledger.claim(id, 'ledgerConn=');

    // Assess
    expect([first, second, otherConnection, afterRelease, whileHeld, afterExpiry]).toEqual([true, false, true, true, false, true]);
  });

  it('answers concurrent claims of the same pair with exactly one winner', async () => {
    const ledger = new DynamoDeliveryLedger(db.client, db.dynamo.tableNames.idempotency, 60, clock);

    const results = await Promise.all(Array.from({ length: 5 }, () => ledger.claim('01JGZS0000BBBBBBBBBBBBBBBB', 'raceConn=')));

    expect(results.filter(Boolean)).toHaveLength(1);
  });
});

