/** Typed builders of shared objects: one object per Parts and identity, never another identity's. */
import { Logger } from '@aws-lambda-powertools/logger';
import { describe, expect, it } from 'vitest';
import { createParts, graphRepository, preferencesCache, type Parts } from '../../src/app/parts.js';

const partsUnderTest = () => createParts({ logger: new Logger({ serviceName: 'parts-test', logLevel: 'SILENT' }), aws: { region: 'us-east-1' } });

describe('shared builders', () => {
  it('give the same object for the same identity and its own object for another one', () => {
    const parts = partsUnderTest();
    expect(graphRepository(parts, 'graph-a')).toBe(graphRepository(parts, 'graph-a'));
    // A string key would have answered the first repository (of graph-a) here.
    expect(graphRepository(parts, 'graph-b')).not.toBe(graphRepository(parts, 'graph-a'));
    expect(preferencesCache(parts, { graphTable: 'graph-a', cacheTtlMs: 30_000 })).toBe(preferencesCache(parts, { graphTable: 'graph-a', cacheTtlMs: 30_000 }));
    expect(preferencesCache(parts, { graphTable: 'graph-a', cacheTtlMs: 0 })).not.toBe(preferencesCache(parts, { graphTable: 'graph-a', cacheTtlMs: 30_000 }));
  });

  it('keep builders apart and Parts apart, and tell objects in an identity by reference', () => {
    const parts = partsUnderTest();
    const other = (_parts: Parts, table: string): { table: string } => parts.shared(other, [table], () => ({ table }));
    expect(other(parts, 'graph-a')).not.toBe(graphRepository(parts, 'graph-a'));
    expect(graphRepository(partsUnderTest(), 'graph-a')).not.toBe(graphRepository(parts, 'graph-a'));
    const schedulerA = { scheduleOnce: async () => 'created' as const };
    const schedulerB = { scheduleOnce: async () => 'created' as const };
    class Scheduler {}
    const byScheduler = (scheduler: object): object => parts.shared(byScheduler, [scheduler], () => ({ scheduler }));
    // Plain data compares by value (two equal literals are one identity); objects with behaviour by reference.
    expect(parts.shared(byScheduler, [{ table: 't', shards: [1, 2] }], () => ({}))).toBe(parts.shared(byScheduler, [{ table: 't', shards: [1, 2] }], () => ({})));
    expect(byScheduler(schedulerA)).toBe(byScheduler(schedulerA));
    expect(byScheduler(schedulerB)).not.toBe(byScheduler(schedulerA));
    const instance = new Scheduler();
    expect(byScheduler(instance)).toBe(byScheduler(instance));
    expect(byScheduler(new Scheduler())).not.toBe(byScheduler(instance));
  });

  it('destroy every SDK client they built', () => {
    const parts = partsUnderTest();
    const destroyed: string[] = [];
    const client = (name: string) => ({ destroy: () => destroyed.push(name) });
    const builder = (_parts: Parts, name: string): { destroy(): void } => parts.shared(builder, [name], () => client(name));
    builder(parts, 'a');
    builder(parts, 'b');
    parts.destroyClients();
    expect(destroyed.sort()).toEqual(['a', 'b']);
  });
});
