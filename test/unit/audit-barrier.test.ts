/**
 * The audit barrier of a queue consumer: the batch's decisions are written before it returns (even
 * when it throws), a redelivered message's decisions carry its receive count as `attempt`, and a
 * composition without a trail is the handler itself.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { auditTrailOf, installAuditTrail, withAuditBarrier } from '../../src/app/audit/audit-trail.js';
import { buildAuditTrail } from '../../src/app/audit/build.js';
import { createParts } from '../../src/app/parts.js';
import { parseAuditLine } from '../../src/core/audit/chain.js';
import type { TraceEntry } from '../../src/core/ports/trace.js';
import { createChannelHandler } from '../../src/handlers/channel-handler.js';
import { MemorySalts, MemorySink, memoryKeys } from '../support/audit-fakes.js';
import { anSqsEvent, anSqsRecord } from '../support/events.js';

const logger = new Logger({ serviceName: 'test', logLevel: 'SILENT' });

function jobBody(eventId: string): string {
  return JSON.stringify({ tenantId: 'acme', eventId });
}

function withTrail() {
  const parts = createParts({ logger });
  const sink = new MemorySink();
  const trail = installAuditTrail(parts, buildAuditTrail({ stream: 'test', sink, keys: memoryKeys(), salts: new MemorySalts(), clock: { nowMs: () => 0 }, logger }));
  return { parts, sink, trail };
}

const decisionsIn = (sink: MemorySink) =>
  sink.lines.flatMap((line) => {
    const parsed = parseAuditLine(line);
    return parsed.ok && parsed.record.kind === 'decision' ? [parsed.record] : [];
  });

describe('withAuditBarrier', () => {
  it('writes the batch\'s decisions before the handler\'s answer is returned, with the receive count of a redelivered message as attempt', async () => {
    // Arrange
    const { parts, sink, trail } = withTrail();
    const retried = { ...anSqsRecord(jobBody('evt-retried')), attributes: { ...anSqsRecord('').attributes, ApproximateReceiveCount: '3' } };
    const handler = withAuditBarrier(parts, async (event: SQSEvent) => {
      await trail.recorder.record([
        { tenantId: 'acme', eventId: 'evt-first', userId: 'alice', stage: 'delivery', outcome: 'delivered_live', atMs: 1 },
        { tenantId: 'acme', eventId: 'evt-retried', userId: 'alice', stage: 'delivery', outcome: 'deduplicated', atMs: 2 },
      ]);
      expect(sink.appends).toEqual([]);
      return { batchItemFailures: [], records: event.Records.length };
    });

    // Act
    const answer = await handler(anSqsEvent([anSqsRecord(jobBody('evt-first')), retried]));

    // Assess
    expect(answer.records).toBe(2);
    expect(decisionsIn(sink).map((record) => [record.decision, record.attempt])).toEqual([
      ['pushed', 1],
      ['deduplicated', 3],
    ]);
    // After the batch, the same event id is a first attempt again for another batch.
    await trail.recorder.record([{ tenantId: 'acme', eventId: 'evt-retried', stage: 'intake', outcome: 'accepted', atMs: 3 }]);
    await trail.flush();
    expect(decisionsIn(sink).at(-1)?.attempt).toBe(1);
  });

  it('writes them when the handler throws too', async () => {
    const { parts, sink, trail } = withTrail();
    const handler = withAuditBarrier(parts, async () => {
      await trail.recorder.record([{ tenantId: 'acme', eventId: 'e', stage: 'intake', outcome: 'accepted', atMs: 1 }]);
      throw new Error('batch failed');
    });
    await expect(handler(anSqsEvent([anSqsRecord(jobBody('e'))]))).rejects.toThrow('batch failed');
    expect(decisionsIn(sink)).toHaveLength(1);
  });

  it('is the handler itself without a trail', () => {
    const parts = createParts({ logger });
    const handler = async () => 'same';
    expect(auditTrailOf(parts)).toBeUndefined();
    expect(withAuditBarrier(parts, handler)).toBe(handler);
  });
});

describe('The channel consumer\'s dead letters', () => {
  it('records a job failing its last receive as dead_lettered (trace and audit trail), with its event id', async () => {
    const traced: TraceEntry[] = [];
    const handler = createChannelHandler({
      delivery: { deliver: async () => ({ failedRecordIds: new Set(), messagesSent: 0, duplicatesSkipped: 0, held: 0, skipped: {}, devicesRemoved: 0 }) },
      channel: 'email',
      deliveryJobSecret: 'secret',
      logger,
      maxReceiveCount: 5,
      trace: { record: async (entries) => void traced.push(...entries) },
    });
    const last = { ...anSqsRecord(jobBody('evt-dlq')), attributes: { ...anSqsRecord('').attributes, ApproximateReceiveCount: '5' } };
    const earlier = { ...anSqsRecord(jobBody('evt-again')), attributes: { ...anSqsRecord('').attributes, ApproximateReceiveCount: '2' } };
    const answer = await handler(anSqsEvent([last, earlier]));
    expect(answer.batchItemFailures).toHaveLength(2);
    expect(traced.map((entry) => [entry.eventId, entry.stage, entry.outcome])).toEqual([['evt-dlq', 'dlq', 'dead_lettered']]);
  });
});
