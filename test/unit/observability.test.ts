import { createSocket } from 'node:dgram';
import { describe, expect, it } from 'vitest';
import { parseDaemonAddress, parseTraceHeader, XRaySubsegments } from '../../src/adapters/xray/xray-subsegments.js';
import { finalAttempt, traceIdsOf } from '../../src/handlers/dead-letter.js';
import { formatTrace, neverFailing, type TraceEntry } from '../../src/core/ports/trace.js';
import type { SQSRecord } from 'aws-lambda';

const entry: TraceEntry = { tenantId: 'acme', userId: 'quinn', eventId: 'e-1', stage: 'gate', outcome: 'quiet_hours', atMs: Date.UTC(2026, 0, 1), detail: 'quiet hours: held until 2026-01-01T07:00:00.000Z' };

describe('delivery trace helpers', () => {
  it('a failing recorder is reported and swallowed: tracing never fails the delivery', async () => {
    // Prepare
    const reported: number[] = [];
    const recorder = neverFailing({ record: () => Promise.reject(new Error('throttled')) }, (_error, count) => reported.push(count));

    // Act
    await recorder.record([entry, entry]);

    // Assess
    expect(reported).toEqual([2]);
  });

  it('formats one line per record, and says so when there is none', () => {
    expect(formatTrace([entry])).toBe('2026-01-01T00:00:00.000Z  gate     quiet_hours  quiet hours: held until 2026-01-01T07:00:00.000Z');
    expect(formatTrace([])).toMatch(/no trace records/);
  });

  it('reads tenant and event id from an EventBridge body and from a delivery job; a last receive is final', () => {
    expect(traceIdsOf(JSON.stringify({ 'detail-type': 'x', detail: { id: 'e-1', tenantId: 'acme' } }))).toEqual({ tenantId: 'acme', eventId: 'e-1' });
    expect(traceIdsOf(JSON.stringify({ v: 1, tenantId: 'acme', eventId: 'e-2' }))).toEqual({ tenantId: 'acme', eventId: 'e-2' });
    expect(traceIdsOf('not json')).toBeUndefined();
    const record = (count: string) => ({ attributes: { ApproximateReceiveCount: count } }) as unknown as SQSRecord;
    expect([finalAttempt(record('4'), 5), finalAttempt(record('5'), 5), finalAttempt(record('5'), undefined)]).toEqual([false, true, false]);
  });
});

describe('X-Ray subsegments', () => {
  it('parses the Lambda trace header and daemon address', () => {
    expect(parseTraceHeader('Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1')).toEqual({ traceId: '1-5759e988-bd862e3fe1be46a994272793', parentId: '53995c3f42cd8ad8', sampled: true });
    expect(parseTraceHeader(undefined)).toBeUndefined();
    expect(parseDaemonAddress('169.254.79.129:2000')).toEqual({ host: '169.254.79.129', port: 2000 });
    expect(parseDaemonAddress('tcp:127.0.0.1:2000 udp:127.0.0.2:2001')).toEqual({ host: '127.0.0.2', port: 2001 });
  });

  it('sends a subsegment annotated with tenant and event id to the daemon', async () => {
    // Prepare: a fake daemon on a UDP port.
    const daemon = createSocket('udp4');
    await new Promise<void>((resolve) => daemon.bind(0, '127.0.0.1', resolve));
    const received = new Promise<string>((resolve) => daemon.once('message', (message) => resolve(message.toString())));
    const xray = new XRaySubsegments(`127.0.0.1:${daemon.address().port}`, () => 'Root=1-abc-def;Parent=0123456789abcdef;Sampled=1');

    // Act
    const answer = await xray.traced('fan-out', { tenantId: 'acme', eventId: 'e-1' }, async () => 42);
    const [header, body] = (await received).split('\n');
    daemon.close();

    // Assess
    expect(answer).toBe(42);
    expect(JSON.parse(header!)).toEqual({ format: 'json', version: 1 });
    expect(JSON.parse(body!)).toMatchObject({ name: 'fan-out', type: 'subsegment', trace_id: '1-abc-def', parent_id: '0123456789abcdef', annotations: { tenantId: 'acme', eventId: 'e-1' } });
  });
});
