/**
 * The audit trail's storage on real local stores: salts in dynalite (one BatchGetItem per lookup,
 * created once whatever the race, never again for an erased user, deleted by `forget`) and the local
 * JSONL archive (append-only; a torn last line terminated and reported; a redelivered backlog
 * segment not appended twice; a second writer process appending its own segment).
 */
import { mkdtemp, readFile, rm, writeFile, appendFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileAuditArchive, readLocalArchive } from '../../src/adapters/audit/file-archive.js';
import { DynamoAuditSalts } from '../../src/adapters/dynamo/audit-salts.js';
import { openSegment, sealAfter, sha256Hex, ChainVerifier } from '../../src/core/audit/chain.js';
import { erasureRecordId } from '../../src/core/privacy/erasure.js';
import { startTestDynamo, type TestDynamo } from '../support/dynamo.js';

let db: TestDynamo;
let salts: DynamoAuditSalts;
let dir: string;

beforeAll(async () => {
  db = await startTestDynamo();
  salts = new DynamoAuditSalts(db.client, db.dynamo.tableNames.idempotency);
  dir = await mkdtemp(join(tmpdir(), 'audit-storage-'));
});
afterAll(async () => {
  await db?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('DynamoAuditSalts', () => {
  it('creates a salt once, even when ten lookups race for it, and answers the same salt afterwards in one BatchGetItem', async () => {
    // Act
    const raced = await Promise.all(Array.from({ length: 10 }, () => salts.saltsOf('acme', ['alice', 'bob'])));
    db.meter.reset();
    const again = await salts.saltsOf('acme', ['alice', 'bob']);

    // Assess
    const alice = raced.map((result) => (result.get('alice') as Buffer).toString('hex'));
    expect(new Set(alice).size).toBe(1);
    expect((again.get('alice') as Buffer).toString('hex')).toBe(alice[0]);
    expect(db.meter.snapshot()).toMatchObject({ requests: 1, byCommand: { BatchGetItemCommand: 1 } });
  });

  it('answers "erased" for a user with a live tombstone and no salt, and creates none', async () => {
    await db.client.send(new PutCommand({ TableName: db.dynamo.tableNames.idempotency, Item: { id: erasureRecordId({ tenantId: 'acme', userId: 'erin' }), status: 'done', expiration: Math.floor(Date.now() / 1000) + 3_600 } }));
    expect((await salts.saltsOf('acme', ['erin'])).get('erin')).toBe('erased');
    expect(await salts.findSalt('acme', 'erin')).toBeUndefined();
  });

  it('ignores an expired tombstone (TTL deletion lags): the id gets a new salt', async () => {
    await db.client.send(new PutCommand({ TableName: db.dynamo.tableNames.idempotency, Item: { id: erasureRecordId({ tenantId: 'acme', userId: 'old' }), status: 'done', expiration: Math.floor(Date.now() / 1000) - 10 } }));
    expect((await salts.saltsOf('acme', ['old'])).get('old')).toBeInstanceOf(Buffer);
  });

  it('forgets a salt: it is gone, and hostile ids are keys like any other', async () => {
    const ids = ['__proto__', 'constructor', 'ü"\n}{', '\u2028#U#x'];
    const created = await salts.saltsOf('__proto__', ids);
    expect([...created.values()].every((salt) => salt instanceof Buffer)).toBe(true);
    expect(new Set([...created.values()].map((salt) => (salt as Buffer).toString('hex'))).size).toBe(ids.length);
    await salts.forget('__proto__', '__proto__');
    expect(await salts.findSalt('__proto__', '__proto__')).toBeUndefined();
    expect(await salts.findSalt('__proto__', 'constructor')).toBeInstanceOf(Buffer);
  });
});

function aSegment(segment: string, stream = 'local', count = 2): string[] {
  const opened = openSegment(stream, segment, { at: '2026-01-01T00:00:00.000Z', cause: 'start', after: null });
  return [opened.line, ...sealAfter(opened.head, Array.from({ length: count }, (_, index) => ({ kind: 'erasure' as const, at: '2026-01-01T00:00:00.000Z', tenant: 'acme', marker: `x1.${String(index).padStart(24, 'M')}` }))).lines];
}

async function verifyDir(archiveDir: string) {
  const verifier = new ChainVerifier();
  for await (const line of readLocalArchive(archiveDir)) verifier.add(line);
  return verifier.finish();
}

describe('FileAuditArchive', () => {
  it('resumes after the stream\'s last record, terminates a torn last line and reports its exact bytes', async () => {
    // Arrange: a segment, then half a line (a kill during the write)
    const archiveDir = join(dir, 'torn');
    const archive = new FileAuditArchive(archiveDir);
    const lines = aSegment('01JAAAAAAAAAAAAAAAAAAAAAAA');
    await archive.append(lines);
    await archive.close();
    const torn = aSegment('01JBBBBBBBBBBBBBBBBBBBBBBB')[0]!.slice(0, 50);
    await appendFile(join(archiveDir, 'audit.jsonl'), torn);

    // Act
    const reopened = new FileAuditArchive(archiveDir);
    const resume = await reopened.resume('local');

    // Assess
    const before = Buffer.byteLength(`${lines.join('\n')}\n`);
    expect(resume.after).toMatchObject({ segment: '01JAAAAAAAAAAAAAAAAAAAAAAA', seq: 2 });
    expect(resume.torn).toEqual({ offset: before, length: 50, sha256: sha256Hex(torn) });
    expect((await readFile(join(archiveDir, 'audit.jsonl'), 'utf8')).endsWith(`${torn}\n`)).toBe(true);
    const report = await verifyDir(archiveDir);
    expect(report.problems.map((problem) => problem.message)).toEqual(['unreadable line: not JSON']);
    await reopened.close();
  });

  it('terminates a torn tail before its first append even when that append comes before the writer resumes (the drainer first)', async () => {
    const archiveDir = join(dir, 'torn-append-first');
    const first = new FileAuditArchive(archiveDir);
    await first.append(aSegment('01JGGGGGGGGGGGGGGGGGGGGGGG'));
    await first.close();
    const torn = aSegment('01JHHHHHHHHHHHHHHHHHHHHHHH')[0]!.slice(0, 33);
    await appendFile(join(archiveDir, 'audit.jsonl'), torn);

    const reopened = new FileAuditArchive(archiveDir);
    await reopened.append(aSegment('01JJJJJJJJJJJJJJJJJJJJJJJJ', 'delivery-urgent/abc'));
    const resume = await reopened.resume('local');
    await reopened.close();

    expect(resume.torn).toMatchObject({ length: 33, sha256: sha256Hex(torn) });
    const report = await verifyDir(archiveDir);
    expect(report.problems.map((problem) => problem.message)).toEqual(['unreadable line: not JSON']);
    expect(report.records).toBe(6);
  });

  it('syncs at most once per interval, not per append, and at close', async () => {
    const archiveDir = join(dir, 'sync-interval');
    const archive = new FileAuditArchive(archiveDir, { syncIntervalMs: 60_000 });
    for (let index = 0; index < 20; index += 1) await archive.append(aSegment(`01J${String(index).padStart(23, 'K')}`));
    expect(archive.syncCount).toBe(0);
    await archive.close();
    expect(archive.syncCount).toBe(1);
    const eager = new FileAuditArchive(join(dir, 'sync-each'), { syncIntervalMs: 0 });
    for (let index = 0; index < 3; index += 1) await eager.append(aSegment(`01J${String(index).padStart(23, 'L')}`));
    expect(eager.syncCount).toBe(3);
    await eager.close();
  });

  it('does not append a backlog segment twice (a drainer that crashed after appending it)', async () => {
    const archiveDir = join(dir, 'dedup');
    const archive = new FileAuditArchive(archiveDir);
    await archive.resume('local');
    const segment = aSegment('01JCCCCCCCCCCCCCCCCCCCCCCC', 'delivery-urgent/abc');
    await archive.append(segment);
    await archive.append(segment);
    await archive.close();
    const reopened = new FileAuditArchive(archiveDir);
    await reopened.resume('local');
    await reopened.append(segment);
    await reopened.close();
    const report = await verifyDir(archiveDir);
    expect(report).toMatchObject({ ok: true, records: 3, duplicates: 0 });
  });

  it('keeps every write whole when two archives (the runtime and the erase CLI) append to one file', async () => {
    const archiveDir = join(dir, 'two-writers');
    const runtime = new FileAuditArchive(archiveDir);
    const cli = new FileAuditArchive(archiveDir, { owner: false, syncIntervalMs: 0 });
    const segments = Array.from({ length: 20 }, (_, index) => aSegment(`01J${String(index).padStart(23, 'D')}`, index % 2 ? 'erase/x' : 'local', 30));
    await Promise.all(segments.map((segment, index) => (index % 2 ? cli : runtime).append(segment)));
    await Promise.all([runtime.close(), cli.close()]);
    expect(await verifyDir(archiveDir)).toMatchObject({ ok: true, records: 20 * 31 });
  });

  it('never rewrites: an existing file keeps its bytes, new lines only follow them', async () => {
    const archiveDir = join(dir, 'append-only');
    const archive = new FileAuditArchive(archiveDir);
    await archive.append(aSegment('01JEEEEEEEEEEEEEEEEEEEEEEE'));
    const first = await readFile(join(archiveDir, 'audit.jsonl'));
    await archive.append(aSegment('01JFFFFFFFFFFFFFFFFFFFFFFF'));
    await archive.close();
    const after = await readFile(join(archiveDir, 'audit.jsonl'));
    expect(after.subarray(0, first.length).equals(first)).toBe(true);
    await writeFile(join(archiveDir, 'notes.txt'), 'not an archive file');
    expect((await verifyDir(archiveDir)).ok).toBe(true);
  });
});
