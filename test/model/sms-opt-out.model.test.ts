/**
 * The SMS opt-out list against a reference model, on dynalite: a number's words (STOP, START and the
 * service's "opted out" answer to a send), each said at an instant, reach the inbound function in any
 * order SNS may deliver them, some twice, and a START may be killed between taking the number off the
 * service's list and recording it here (SNS then delivers it again). The model: the number is opted
 * out exactly when its latest word is an opt-out (at the same instant an opt-out wins), and not when
 * it said nothing. Runs the real core (`actOnInboundText`) on the real `DynamoSmsOptOutList`.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoSmsOptOutList } from '../../src/adapters/dynamo/sms-records.js';
import { actOnInboundText, type SmsInboundDeps } from '../../src/core/channels/sms-inbound.js';
import { modelParameters } from '../support/model-runs.js';
import { startTestDynamo, type TestDynamo } from '../support/dynamo.js';

type Word = { kind: 'stop' | 'start' | 'provider'; atMs: number };
/** One delivery of a word to the function; `killed`: a START killed after the service call (SNS delivers it again later). */
type Delivery = { word: number; killed: boolean };

const T0 = Date.parse('2026-11-26T09:00:00.000Z');
let db: TestDynamo;
let numbers = 0;

beforeAll(async () => {
  db = await startTestDynamo();
});
afterAll(async () => db?.close());

/** The reference: opted out when the latest word is an opt-out; an opt-out wins a tie. */
function modelOptedOut(words: readonly Word[]): boolean {
  const latest = [...words].sort((a, b) => a.atMs - b.atMs || (a.kind === 'start' ? -1 : 0) - (b.kind === 'start' ? -1 : 0)).pop();
  return latest !== undefined && latest.kind !== 'start';
}

const scenario = fc
  .array(fc.record({ kind: fc.constantFrom<Word['kind']>('stop', 'start', 'provider'), atMs: fc.integer({ min: 0, max: 4 }) }), { minLength: 0, maxLength: 6 })
  .chain((words) =>
    fc.record({
      words: fc.constant(words),
      // Every word once, some twice, in any order; a START may be killed (its redelivery follows somewhere later).
      deliveries: fc
        .tuple(...words.map((word, index) => fc.tuple(fc.constant(index), fc.boolean(), fc.boolean().map((killed) => killed && word.kind === 'start'))))
        .chain((plans) => fc.shuffledSubarray(plans.flatMap(([index, twice, killed]): Delivery[] => [...(killed ? [{ word: index, killed: true }] : []), { word: index, killed: false }, ...(twice ? [{ word: index, killed: false }] : [])]), { minLength: plans.reduce((n, [, twice, killed]) => n + 1 + (twice ? 1 : 0) + (killed ? 1 : 0), 0) })),
    }),
  );

describe('SMS opt-out list: any delivery order, duplicates and a kill between the two writes of a START', () => {
  it('ends opted out exactly when the latest word is an opt-out', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ words, deliveries }) => {
        // Prepare: a fresh number; the service's list as a set.
        numbers += 1;
        const phone = `+1415${String(5_000_000 + numbers).padStart(7, '0')}`;
        const optOuts = new DynamoSmsOptOutList(db.client, db.dynamo.tableNames.idempotency);
        const serviceListed = new Set<string>();
        let killNext = false;
        const deps: SmsInboundDeps = {
          optOuts: {
            isOptedOut: (number) => optOuts.isOptedOut(number),
            stateOf: (number) => optOuts.stateOf(number),
            optOut: (number, atMs, source) => optOuts.optOut(number, atMs, source),
            optIn: async (number, atMs) => {
              if (killNext) throw new Error('killed between the service call and the record');
              return optOuts.optIn(number, atMs);
            },
          },
          serviceOptOuts: { optIn: async (number) => ({ status: serviceListed.delete(number) ? 'opted_in' : 'not_listed' }) },
          clock: { nowMs: () => T0 },
          onEvent: () => undefined,
        };

        // Act: each delivery as the function gets it (a provider answer as the consumer records it).
        for (const delivery of deliveries) {
          const word = words[delivery.word]!;
          const atMs = T0 + word.atMs;
          if (word.kind === 'provider') {
            await optOuts.optOut(phone, atMs, 'provider');
            continue;
          }
          if (word.kind === 'stop') serviceListed.add(phone);
          killNext = delivery.killed;
          try {
            await actOnInboundText(deps, { from: phone, body: word.kind === 'stop' ? 'STOP' : 'START', atMs, messageId: `m${delivery.word}` });
          } catch (error) {
            if (!delivery.killed) throw error;
          } finally {
            killNext = false;
          }
        }

        // Assess
        expect(await optOuts.isOptedOut(phone)).toBe(modelOptedOut(words));
      }),
      modelParameters(40, 2_000),
    );
  });
});
