import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { PreferencesRepository } from '../../src/adapters/dynamo/preferences-repository.js';
import { keys } from '../../src/core/model/keys.js';
import { CachedPreferencesReader } from '../../src/core/preferences/preferences-cache.js';
import type { PreferencesLookup } from '../../src/core/preferences/preferences.js';
import type { PreferencesReader } from '../../src/core/preferences/store.js';
import { ManualClock, startTestDynamo, type TestDynamo } from '../support/dynamo.js';
import { aPreferences, utc } from '../support/preferences-fixtures.js';

let db: TestDynamo;
let repository: PreferencesRepository;

beforeAll(async () => {
  db = await startTestDynamo();
  repository = new PreferencesRepository(db.client, db.dynamo.tableNames.graph, { sleep: async () => undefined });
});

afterAll(async () => {
  await db.close();
});

describe('PreferencesRepository', () => {
  it('answers the defaults for a user who never saved preferences', async () => {
    // Act
    const lookups = await repository.getPreferences('acme', ['nobody']);

    // Assess
    expect(lookups.get('nobody')).toEqual({ status: 'default', preferences: { timeZone: 'UTC', quietHours: null, mutedTypes: [], liveDelivery: {}, updatedAt: null } });
  });

  it('reads back what was put, per tenant and user', async () => {
    // Prepare
    const saved = aPreferences({ timeZone: 'Asia/Kolkata', quietHours: { start: '22:00', end: '07:00' }, mutedTypes: ['post.published'], liveDelivery: { 'comment.created': false } });
    await repository.putPreferences('acme', 'alice', saved);

    // Act
    const acme = await repository.getPreferences('acme', ['alice']);
    const globex = await repository.getPreferences('globex', ['alice']);

    // Assess
    expect(acme.get('alice')).toEqual({ status: 'saved', preferences: saved });
    expect(globex.get('alice')?.status).toBe('default');
  });

  it('a PUT replaces the whole document', async () => {
    // Prepare
    await repository.putPreferences('acme', 'carol', aPreferences({ mutedTypes: ['post.published'] }));

    // Act
    await repository.putPreferences('acme', 'carol', aPreferences({ timeZone: 'Europe/Berlin' }));

    // Assess
    expect(await repository.getPreferences('acme', ['carol'])).toEqual(new Map([['carol', { status: 'saved', preferences: aPreferences({ timeZone: 'Europe/Berlin' }) }]]));
  });

  it('reads 250 users in BatchGetItem calls of at most 100 keys', async () => {
    // Prepare
    const users = Array.from({ length: 250 }, (_, index) => `u${index}`);
    await repository.putPreferences('acme', 'u7', aPreferences({ mutedTypes: ['comment.created'] }));
    db.meter.reset();

    // Act
    const lookups = await repository.getPreferences('acme', [...users, 'u7']);

    // Assess
    expect(lookups.size).toBe(250);
    expect(lookups.get('u7')?.status).toBe('saved');
    expect(lookups.get('u8')?.status).toBe('default');
    expect(db.meter.snapshot().byCommand).toMatchObject({ BatchGetItemCommand: 3 });
  });

  it('marks a row with a zone the runtime does not know (or a corrupt row) unreadable', async () => {
    // Prepare
    await db.client.send(new PutCommand({ TableName: db.dynamo.tableNames.graph, Item: { ...keys.preferences('acme', 'mars'), ...aPreferences({ timeZone: 'Mars/Olympus_Mons' }) } }));
    await db.client.send(new PutCommand({ TableName: db.dynamo.tableNames.graph, Item: { ...keys.preferences('acme', 'corrupt'), timeZone: 'UTC', quietHours: 'always' } }));

    // Act
    const lookups = await repository.getPreferences('acme', ['mars', 'corrupt']);

    // Assess
    expect(lookups.get('mars')?.status).toBe('unreadable');
    expect(lookups.get('corrupt')?.status).toBe('unreadable');
  });
});

describe('CachedPreferencesReader', () => {
  class CountingReader implements PreferencesReader {
    calls = 0;
    failing = false;
    constructor(private readonly inner: PreferencesReader) {}
    async getPreferences(tenantId: string, userIds: readonly string[]): Promise<Map<string, PreferencesLookup>> {
      this.calls += 1;
      if (this.failing) throw new Error('DynamoDB unavailable');
      return this.inner.getPreferences(tenantId, userIds);
    }
  }

  it('serves from cache within the TTL and sees a change after it', async () => {
    // Prepare
    const clock = new ManualClock(utc(2026, 11, 21, 10, 0));
    const counting = new CountingReader(repository);
    const reader = new CachedPreferencesReader(counting, clock, { ttlMs: 30_000 });
    await repository.putPreferences('acme', 'dave', aPreferences({ mutedTypes: [] }));
    expect((await reader.getOne('acme', 'dave')).status).toBe('saved');

    // Act
    await repository.putPreferences('acme', 'dave', aPreferences({ mutedTypes: ['post.published'] }));
    const cached = await reader.getOne('acme', 'dave');
    clock.advance(30_001);
    const fresh = await reader.getOne('acme', 'dave');

    // Assess
    expect(cached.status === 'saved' && cached.preferences.mutedTypes).toEqual([]);
    expect(fresh.status === 'saved' && fresh.preferences.mutedTypes).toEqual(['post.published']);
    expect(counting.calls).toBe(2);
  });

  it('fails closed on a read error (unreadable) and does not cache the failure', async () => {
    // Prepare
    const clock = new ManualClock(utc(2026, 11, 21, 10, 0));
    const counting = new CountingReader(repository);
    const errors: unknown[] = [];
    const reader = new CachedPreferencesReader(counting, clock, { ttlMs: 30_000, onError: (error) => errors.push(error) });
    counting.failing = true;

    // Act
    const failed = await reader.getOne('acme', 'erin');
    counting.failing = false;
    const recovered = await reader.getOne('acme', 'erin');

    // Assess
    expect(failed.status).toBe('unreadable');
    expect(errors).toHaveLength(1);
    expect(recovered.status).toBe('default');
  });
});
