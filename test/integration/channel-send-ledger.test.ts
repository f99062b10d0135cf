/**
 * The channels' send ledger on dynalite: at-most-once claims, and the at-least-once claim that records
 * `sending` then `sent`, a live `sending` claim refused, a stale one taken over; and the escalation
 * state read (marks, exceptions, retraction records) in one BatchGetItem whatever the inbox holds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChannelSendLedger } from '../../src/adapters/dynamo/channel-send-ledger.js';
import { DynamoEscalationState } from '../../src/adapters/dynamo/escalation-state.js';
import { ReadStateRepository } from '../../src/adapters/dynamo/read-state-repository.js';
import { RetractionRepository } from '../../src/adapters/dynamo/retraction-repository.js';
import type { ChannelSendKey } from '../../src/core/channels/ports.js';
import { notificationId, timeOfId } from '../../src/core/model/ids.js';
import { markAt } from '../../src/core/model/read-state.js';
import { ManualClock, startTestDynamo, type TestDynamo } from '../support/dynamo.js';

const T0 = Date.parse('2026-11-26T08:00:00.000Z');
let db: TestDynamo;
beforeAll(async () => {
  db = await startTestDynamo();
});
afterAll(async () => db?.close());

const key = (n: number): ChannelSendKey => ({ tenantId: 'acme', userId: 'alice', channel: 'email', notificationId: notificationId({ tenantId: 'acme', type: 'security.alert', eventId: `e${n}`, recipient: 'alice', timeMs: T0 }) });

describe('ChannelSendLedger: delivery guarantees', () => {
  it('at-least-once: claimed as sending; a second attempt meanwhile is refused as in flight; once stale it is taken over; sent is final', async () => {
    // Prepare
    const clock = new ManualClock(T0);
    const ledger = new ChannelSendLedger(db.client, db.dynamo.tableNames.idempotency, clock);

    // Act
    const first = await ledger.claimSending(key(1), 60_000);
    clock.advance(30_000);
    const whileLive = await ledger.claimSending(key(1), 60_000);
    clock.advance(31_000);
    const afterCrash = await ledger.claimSending(key(1), 60_000);
    await ledger.markSent(key(1));
    clock.advance(600_000);
    const afterSent = await ledger.claimSending(key(1), 60_000);

    // Assess
    expect([first, whileLive, afterCrash, afterSent]).toEqual(['claimed', 'sending', 'claimed', 'sent']);
  });

  it('an at-most-once claim is final for an at-least-once claim (sent), and the other way round', async () => {
    const ledger = new ChannelSendLedger(db.client, db.dynamo.tableNames.idempotency, new ManualClock(T0));
    expect(await ledger.claim(key(2))).toBe(true);
    expect(await ledger.claimSending(key(2), 1)).toBe('sent');
    expect(await ledger.claimSending(key(3), 60_000)).toBe('claimed');
    expect(await ledger.claim(key(3))).toBe(false);
  });

  it('a released (throttled) at-least-once claim is claimed again at once', async () => {
    const ledger = new ChannelSendLedger(db.client, db.dynamo.tableNames.idempotency, new ManualClock(T0));
    expect(await ledger.claimSending(key(4), 60_000)).toBe('claimed');
    await ledger.release(key(4));
    expect(await ledger.claimSending(key(4), 60_000)).toBe('claimed');
  });
});

describe('DynamoEscalationState', () => {
  it('one BatchGetItem for the marks, the exceptions and the retraction records, whatever the inbox holds', async () => {
    // Prepare: bob read all up to after the first notification; the second's event was retracted.
    const user = { tenantId: 'acme', userId: 'bob' };
    const ids = [1, 2, 3].map((n) => notificationId({ tenantId: 'acme', type: 'mention.created', eventId: `m${n}`, recipient: 'bob', timeMs: T0 + n * 60_000 }));
    const readState = new ReadStateRepository(db.client, db.dynamo.tableNames.readMarks);
    await readState.advanceReadMark(user, markAt(T0 + 90_000), new Date(T0 + 90_000).toISOString());
    await new RetractionRepository(db.client, db.dynamo.tableNames.inbox).recordRetraction({ tenantId: 'acme', type: 'mention.created', eventId: 'm2', arrivalMs: timeOfId(ids[1]!) }, Math.floor(T0 / 1000) + 86_400);
    const reader = new DynamoEscalationState(db.client, { inbox: db.dynamo.tableNames.inbox, readMarks: db.dynamo.tableNames.readMarks });
    db.meter.reset();

    // Act
    const { state, retracted } = await reader.escalationState(user, ids.map((id, index) => ({ notificationId: id, type: 'mention.created', eventId: `m${index + 1}` })));

    // Assess
    expect(db.meter.snapshot().byCommand).toEqual({ BatchGetItemCommand: 1 });
    expect(state.readMark).toBe(markAt(T0 + 90_000));
    expect([...retracted]).toEqual([ids[1]]);
  });
});
