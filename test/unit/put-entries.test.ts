import type { PutEventsCommand, PutEventsResultEntry } from '@aws-sdk/client-eventbridge';
import { describe, expect, it } from 'vitest';
import { putEntries, PutEntriesError } from '../../src/producer/put-entries.js';

/** A bus that answers each call's entries from `answer(detail, callIndex)`: the per-entry errors a local service gives only under load. */
function busAnswering(answer: (detail: string, call: number) => PutEventsResultEntry) {
  const calls: string[][] = [];
  return {
    calls,
    async send(command: PutEventsCommand) {
      const details = (command.input.Entries ?? []).map((entry) => entry.Detail ?? '');
      calls.push(details);
      const entries = details.map((detail) => answer(detail, calls.length));
      return { FailedEntryCount: entries.filter((entry) => entry.ErrorCode).length, Entries: entries };
    },
  };
}

const entries = (count: number) => Array.from({ length: count }, (_, index) => ({ EventBusName: 'notifications', Source: 't', DetailType: 'mention.created', Detail: `e${index}` }));
const noWait = { delayMs: () => 0 };

describe('putEntries', () => {
  it('sends calls of 10 and resends only the throttled entries, answering every entry in order', async () => {
    const bus = busAnswering((detail, call) => (detail === 'e3' && call === 1 ? { ErrorCode: 'ThrottlingException', ErrorMessage: 'slow down' } : { EventId: `id-${detail}` }));
    const retried: number[] = [];
    const results = await putEntries(bus, entries(12), { ...noWait, onRetry: (count) => retried.push(count) });
    expect(results.map((result) => result.EventId)).toEqual(Array.from({ length: 12 }, (_, index) => `id-e${index}`));
    expect(bus.calls.map((call) => call.length)).toEqual([10, 1, 2]);
    expect(bus.calls[1]).toEqual(['e3']);
    expect(retried).toEqual([1]);
  });

  it('throws at once on an entry error that is not retriable, naming it', async () => {
    const bus = busAnswering(() => ({ ErrorCode: 'MalformedDetail', ErrorMessage: 'not JSON' }));
    await expect(putEntries(bus, entries(1), noWait)).rejects.toThrow(new PutEntriesError('PutEvents refused entry 0: MalformedDetail not JSON'));
    expect(bus.calls).toHaveLength(1);
  });

  it('gives up after maxAttempts of a throttled entry', async () => {
    const bus = busAnswering(() => ({ ErrorCode: 'ThrottlingException' }));
    await expect(putEntries(bus, entries(1), { ...noWait, maxAttempts: 3 })).rejects.toThrow(/after 3 attempts: ThrottlingException/);
    expect(bus.calls).toHaveLength(3);
  });
});
