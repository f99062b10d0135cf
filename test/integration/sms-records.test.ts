/**
 * The SMS records on dynalite: the opt-out list as a per-number register of its latest word (a START
 * after a STOP opts back in, an older word delivered late loses, an opt-out wins a tie, a record from
 * before the word's instant was kept counts as opted out), the keyword answers (one per number,
 * keyword and day, in the day's texts in all) and the spend guards (per user, a retried message
 * counted once, and in all).
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoSmsAnswerGuard, DynamoSmsOptOutList, DynamoSmsSpendGuard } from '../../src/adapters/dynamo/sms-records.js';
import { SMS_OPTED_IN_RETENTION_SECONDS } from '../../src/core/channels/sms.js';
import { keys } from '../../src/core/model/keys.js';
import { startTestDynamo, type TestDynamo } from '../support/dynamo.js';

const T0 = Date.parse('2026-11-26T09:00:00.000Z');
const DAY = T0 - (T0 % 86_400_000);
let db: TestDynamo;
let table: string;

beforeAll(async () => {
  db = await startTestDynamo();
  table = db.dynamo.tableNames.idempotency;
});
afterAll(async () => db?.close());

describe('DynamoSmsOptOutList', () => {
  it('STOP then START: opted out, then in again (kept 30 days to order late words); the record names no number', async () => {
    // Prepare
    const list = new DynamoSmsOptOutList(db.client, table);
    const phone = '+14155550111';

    // Act
    const stop = await list.optOut(phone, T0, 'inbound_stop');
    const afterStop = await list.isOptedOut(phone);
    const start = await list.optIn(phone, T0 + 1_000);
    const stored = (await db.client.send(new GetCommand({ TableName: table, Key: { id: keys.smsOptOutId(phone) } }))).Item!;

    // Assess
    expect([stop, afterStop, start, await list.isOptedOut(phone)]).toEqual(['recorded', true, 'recorded', false]);
    expect(stored).toMatchObject({ optedOut: false, changedAtMs: T0 + 1_000, source: 'inbound_start', expiration: Math.floor((T0 + 1_000) / 1000) + SMS_OPTED_IN_RETENTION_SECONDS });
    expect(JSON.stringify(stored)).not.toContain('4155550111');
  });

  it('an older word delivered late loses; at the same instant an opt-out wins whichever comes first; a STOP has no TTL', async () => {
    const list = new DynamoSmsOptOutList(db.client, table);
    const [a, b] = ['+14155550112', '+14155550113'];
    expect(await list.optIn(a, T0 + 10)).toBe('recorded');
    expect(await list.optOut(a, T0 + 5, 'inbound_stop')).toBe('stale');
    expect(await list.isOptedOut(a)).toBe(false);
    expect(await list.optOut(a, T0 + 10, 'inbound_stop')).toBe('recorded');
    expect(await list.optIn(a, T0 + 10)).toBe('stale');
    expect(await list.isOptedOut(a)).toBe(true);
    expect((await db.client.send(new GetCommand({ TableName: table, Key: { id: keys.smsOptOutId(a) } }))).Item!.expiration).toBeUndefined();
    expect(await list.optOut(b, T0 + 10, 'provider')).toBe('recorded');
    expect(await list.optIn(b, T0 + 10)).toBe('stale');
    expect(await list.stateOf(b)).toEqual({ optedOut: true, changedAtMs: T0 + 10 });
  });

  it('a record written before the word\'s instant was kept is an opt-out, and any START replaces it', async () => {
    const list = new DynamoSmsOptOutList(db.client, table);
    const phone = '+14155550114';
    await db.client.send(new PutCommand({ TableName: table, Item: { id: keys.smsOptOutId(phone), optedOutAt: '2026-01-01T00:00:00.000Z', source: 'inbound_stop' } }));
    expect(await list.stateOf(phone)).toEqual({ optedOut: true });
    expect(await list.optIn(phone, T0)).toBe('recorded');
    expect(await list.isOptedOut(phone)).toBe(false);
  });
});

describe('DynamoSmsAnswerGuard', () => {
  it('one answer per number, keyword and day, each counted in the day\'s texts in all; at that limit none', async () => {
    // Prepare: the day's total at 2 of 3
    const guard = new DynamoSmsAnswerGuard(db.client, table);
    const spend = new DynamoSmsSpendGuard(db.client, table);
    const day = DAY + 86_400_000;
    await spend.admit({ tenantId: 'acme', userId: 'u1' }, day, 'm1', { perUserPerDay: 10, perDay: 3 });
    await spend.admit({ tenantId: 'acme', userId: 'u2' }, day, 'm2', { perUserPerDay: 10, perDay: 3 });

    // Act
    const first = await guard.admitAnswer('+14155550115', 'help', day, 3);
    const again = await guard.admitAnswer('+14155550115', 'help', day, 3);
    const full = await guard.admitAnswer('+14155550116', 'help', day, 3);
    const fullAgain = await guard.admitAnswer('+14155550116', 'help', day, 3);
    const nextDay = await guard.admitAnswer('+14155550115', 'help', day + 86_400_000, 3);
    await guard.releaseAnswer('+14155550115', 'help', day + 86_400_000);
    const afterRelease = await guard.admitAnswer('+14155550115', 'help', day + 86_400_000, 3);

    // Assess
    expect([first, again, full, fullAgain, nextDay, afterRelease]).toEqual(['admitted', 'already_answered', 'global_limit', 'global_limit', 'admitted', 'admitted']);
  });
});

describe('DynamoSmsSpendGuard', () => {
  it('per user: a retried message counts once, the next over the limit is refused; in all: refused at the day\'s limit', async () => {
    const spend = new DynamoSmsSpendGuard(db.client, table);
    const day = DAY + 5 * 86_400_000;
    const limits = { perUserPerDay: 2, perDay: 3 };
    const ana = { tenantId: 'acme', userId: 'ana' };
    const verdicts = [
      await spend.admit(ana, day, 'm1', limits),
      await spend.admit(ana, day, 'm1', limits),
      await spend.admit(ana, day, 'm2', limits),
      await spend.admit(ana, day, 'm3', limits),
      await spend.admit({ tenantId: 'acme', userId: 'ben' }, day, 'm4', limits),
      await spend.admit({ tenantId: 'acme', userId: 'cy' }, day, 'm5', limits),
    ];
    expect(verdicts).toEqual(['admitted', 'admitted', 'admitted', 'user_limit', 'admitted', 'global_limit']);
  });
});
