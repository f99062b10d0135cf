/**
 * The audit backlog's drainer (sealed segments appended unchanged, raw decisions sealed, forged or
 * broken messages refused and retried into the DLQ, a sink still down fails the record), and the AWS
 * adapters' error paths a local service cannot produce (Firehose partial failure, KMS answers),
 * asserted on the exact commands sent.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { FirehoseClient, PutRecordBatchCommand } from '@aws-sdk/client-firehose';
import { GenerateMacCommand, KMSClient } from '@aws-sdk/client-kms';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { readS3Archive } from '../../src/adapters/audit/s3-archive.js';
import { ChainVerifier } from '../../src/core/audit/chain.js';
import { afterEach, describe, expect, it } from 'vitest';
import { FirehoseAuditSink } from '../../src/adapters/audit/firehose-sink.js';
import { KmsAuditKeys } from '../../src/adapters/audit/kms-keys.js';
import { AuditWriter } from '../../src/core/audit/audit-writer.js';
import { openSegment, sealAfter } from '../../src/core/audit/chain.js';
import { Pseudonymizer } from '../../src/core/audit/pseudonymizer.js';
import { tenantKeyMessage } from '../../src/core/audit/pseudonyms.js';
import { createAuditDrainHandler, parseBacklogMessage } from '../../src/handlers/audit-drain-handler.js';
import { MemoryBacklog, MemorySalts, MemorySink, aDecision, memoryKeys } from '../support/audit-fakes.js';
import { anSqsEvent, anSqsRecord } from '../support/events.js';

const logger = new Logger({ serviceName: 'test', logLevel: 'SILENT' });

function drainer() {
  const sink = new MemorySink();
  const keys = memoryKeys();
  const pseudonymizer = new Pseudonymizer(keys, new MemorySalts(), { nowMs: () => 0 });
  let id = 0;
  const writer = new AuditWriter({ stream: 'audit-drain/x', sink, backlog: new MemoryBacklog(), pseudonymizer, newSegmentId: () => `01J${String((id += 1)).padStart(23, '0')}`, nowMs: () => 0, onEvent: () => undefined });
  return { sink, keys, handler: createAuditDrainHandler({ sink, writer, pseudonymizer, logger }) };
}

function aSealedSegment(): string[] {
  const opened = openSegment('delivery-urgent/abc', '01JAAAAAAAAAAAAAAAAAAAAAAA', { at: '2026-01-01T00:00:00.000Z', cause: 'failover', after: null });
  return [opened.line, ...sealAfter(opened.head, [{ kind: 'erasure', at: '2026-01-01T00:00:00.000Z', tenant: 'acme', marker: `x1.${'X'.repeat(24)}` }]).lines];
}

describe('The audit backlog drainer', () => {
  it('appends a sealed segment unchanged and seals raw decisions in its own stream', async () => {
    // Arrange
    const { sink, handler } = drainer();
    const sealed = aSealedSegment();

    // Act
    const response = await handler(anSqsEvent([anSqsRecord(JSON.stringify({ v: 1, kind: 'sealed', lines: sealed })), anSqsRecord(JSON.stringify({ v: 1, kind: 'raw', decisions: [aDecision()], erasures: [] }))]));

    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(sink.appends[0]).toEqual(sealed);
    expect(sink.lines.filter((line) => line.includes('"stream":"audit-drain/x"'))).toHaveLength(2);
  });

  it.each([
    ['not JSON', '{', 'body is not JSON'],
    ['an unknown kind', JSON.stringify({ v: 1, kind: 'other' }), 'kind'],
    ['a changed sealed line', JSON.stringify({ v: 1, kind: 'sealed', lines: aSealedSegment().map((line, index) => (index === 1 ? line.replace('acme', 'acmf') : line)) }), 'lines.1: hash mismatch'],
    ['sealed lines that do not start a segment', JSON.stringify({ v: 1, kind: 'sealed', lines: aSealedSegment().slice(1) }), 'must start a segment'],
    ['a raw decision with an unknown stage', JSON.stringify({ v: 1, kind: 'raw', decisions: [{ ...aDecision(), stage: 'pigeon' }], erasures: [] }), 'decisions.0.stage'],
    ['a raw decision with a __proto__ key', JSON.stringify({ v: 1, kind: 'raw', decisions: [aDecision()], erasures: [] }).replace('"attempt":1', '"attempt":1,"__proto__":{"admin":true}'), 'decisions.0: Unrecognized key: "__proto__"'],
  ])('refuses %s with the reason (the record is retried, then dead-lettered)', async (_name, body, reason) => {
    expect(() => parseBacklogMessage(body)).toThrow(reason);
    const { sink, handler } = drainer();
    const record = anSqsRecord(body);
    expect((await handler(anSqsEvent([record]))).batchItemFailures).toEqual([{ itemIdentifier: record.messageId }]);
    expect(sink.appends).toEqual([]);
  });

  it('fails the record while the sink is still down, and while the keys are unreadable (no loop through the backlog)', async () => {
    const { sink, keys, handler } = drainer();
    sink.available = false;
    const sealed = anSqsRecord(JSON.stringify({ v: 1, kind: 'sealed', lines: aSealedSegment() }));
    expect((await handler(anSqsEvent([sealed]))).batchItemFailures).toEqual([{ itemIdentifier: sealed.messageId }]);
    sink.available = true;
    keys.failing = true;
    const raw = anSqsRecord(JSON.stringify({ v: 1, kind: 'raw', decisions: [aDecision()], erasures: [] }));
    expect((await handler(anSqsEvent([raw]))).batchItemFailures).toEqual([{ itemIdentifier: raw.messageId }]);
  });
});

describe('AWS audit adapters', () => {
  const firehose = mockClient(FirehoseClient);
  const kms = mockClient(KMSClient);
  afterEach(() => {
    firehose.reset();
    kms.reset();
  });

  it('Firehose: one PutRecordBatch with ONE record holding every line (newline-terminated)', async () => {
    firehose.on(PutRecordBatchCommand).resolves({ FailedPutCount: 0, RequestResponses: [{ RecordId: 'r' }] });
    await new FirehoseAuditSink(new FirehoseClient({ region: 'eu-west-1' }), 'audit').append(['{"a":1}', '{"b":2}']);
    const calls = firehose.commandCalls(PutRecordBatchCommand);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.args[0].input.DeliveryStreamName).toBe('audit');
    expect(Buffer.from(calls[0]!.args[0].input.Records![0]!.Data!).toString('utf8')).toBe('{"a":1}\n{"b":2}\n');
  });

  it('Firehose: a record reported failed fails the append (the writer fails over to the backlog)', async () => {
    firehose.on(PutRecordBatchCommand).resolves({ FailedPutCount: 1, RequestResponses: [{ ErrorCode: 'ServiceUnavailableException', ErrorMessage: 'Slow down.' }] });
    await expect(new FirehoseAuditSink(new FirehoseClient({ region: 'eu-west-1' }), 'audit').append(['{}'])).rejects.toThrow('Firehose refused the audit record: ServiceUnavailableException Slow down.');
  });

  it('Firehose: a group over one record\'s 1,000 KiB is refused before any call', async () => {
    await expect(new FirehoseAuditSink(new FirehoseClient({ region: 'eu-west-1' }), 'audit').append(['x'.repeat(1_100_000)])).rejects.toThrow('exceeds one Firehose record');
    expect(firehose.commandCalls(PutRecordBatchCommand)).toHaveLength(0);
  });

  it('S3 archive: every object under the prefix in key order, across list pages, gzipped ones unzipped, as verifiable lines', async () => {
    const s3 = mockClient(S3Client);
    const lines = aSealedSegment();
    s3.on(ListObjectsV2Command, { Bucket: 'archive', Prefix: 'audit/' })
      .resolvesOnce({ Contents: [{ Key: 'audit/2026/11/26/a.gz' }], IsTruncated: true, NextContinuationToken: 't' })
      .resolvesOnce({ Contents: [{ Key: 'audit/2026/11/26/b' }], IsTruncated: false });
    // The reader only streams the body (a Node Readable on Lambda and in Node).
    const body = (bytes: Buffer) => Readable.from([bytes]);
    s3.on(GetObjectCommand, { Key: 'audit/2026/11/26/a.gz' }).resolves({ Body: body(gzipSync(`${lines[0]}\n`)) as never });
    s3.on(GetObjectCommand, { Key: 'audit/2026/11/26/b' }).resolves({ Body: body(Buffer.from(`${lines[1]}\n`)) as never });
    const verifier = new ChainVerifier({ tolerateDuplicates: true });
    const sources: string[] = [];
    for await (const line of readS3Archive(new S3Client({ region: 'eu-west-1' }), 'archive', 'audit/')) {
      sources.push(`${line.source}:${line.line}`);
      verifier.add(line);
    }
    expect(sources).toEqual(['s3://archive/audit/2026/11/26/a.gz:1', 's3://archive/audit/2026/11/26/b:1']);
    expect(verifier.finish()).toMatchObject({ ok: true, records: 2 });
    s3.restore();
  });

  it('KMS: a tenant key is GenerateMac (HMAC_SHA_256) of the tenant message; no MAC is an error', async () => {
    kms.on(GenerateMacCommand).resolvesOnce({ Mac: new Uint8Array(32).fill(9) }).resolvesOnce({});
    const keys = new KmsAuditKeys(new KMSClient({ region: 'eu-west-1' }), 'arn:aws:kms:eu-west-1:1:key/k');
    expect(await keys.tenantKey('acme')).toEqual(Buffer.alloc(32, 9));
    expect(kms.commandCalls(GenerateMacCommand)[0]!.args[0].input).toEqual({ KeyId: 'arn:aws:kms:eu-west-1:1:key/k', MacAlgorithm: 'HMAC_SHA_256', Message: tenantKeyMessage('acme') });
    await expect(keys.tenantKey('acme')).rejects.toThrow('no MAC');
  });
});
