/**
 * The audit writer: recording does no I/O; concurrent batches share one append (group commit); a
 * refused append goes to the backlog as a self-contained failover segment while the live segment
 * continues gap-free; unreadable keys park the raw decisions; a refused backlog is logged, counted,
 * never thrown; a restart links to the last durable record and acknowledges a torn line.
 */
import { describe, expect, it } from 'vitest';
import { parseAuditLine, ChainVerifier, type AuditLine } from '../../src/core/audit/chain.js';
import { AuditWriter, type AuditCount } from '../../src/core/audit/audit-writer.js';
import type { AuditSink, SinkResume } from '../../src/core/audit/ports.js';
import { Pseudonymizer } from '../../src/core/audit/pseudonymizer.js';
import { erasureMarker, eventRef, tenantKeyFromMaster, userKey, userRef } from '../../src/core/audit/pseudonyms.js';
import type { AuditRecord } from '../../src/contract/audit-record.js';
import { MemoryBacklog, MemorySalts, MemorySink, aDecision, memoryKeys } from '../support/audit-fakes.js';

const MASTER = Buffer.alloc(32, 7);

function writerWith(options: { sink?: AuditSink; resume?: SinkResume; backlog?: MemoryBacklog | undefined; salts?: MemorySalts; keys?: ReturnType<typeof memoryKeys>; nowMs?: () => number } = {}) {
  const sink = options.sink ?? new MemorySink();
  const backlog = 'backlog' in options ? options.backlog : new MemoryBacklog();
  const salts = options.salts ?? new MemorySalts();
  const keys = options.keys ?? memoryKeys(MASTER);
  const counts: Record<AuditCount, number> = { written: 0, buffered: 0, unbuffered: 0 };
  const events: Array<{ level: string; message: string; context: Record<string, unknown> }> = [];
  let segment = 0;
  const nowMs = options.nowMs ?? (() => Date.UTC(2026, 0, 1));
  const writer = new AuditWriter({
    stream: 'local',
    sink: options.resume ? { append: (lines) => sink.append(lines), resume: async () => options.resume! } : sink,
    ...(backlog ? { backlog } : {}),
    pseudonymizer: new Pseudonymizer(keys, salts, { nowMs }),
    newSegmentId: () => `01J${String((segment += 1)).padStart(23, '0')}`,
    nowMs,
    onEvent: (level, message, context) => events.push({ level, message, context }),
    onCount: (count, records) => void (counts[count] += records),
  });
  return { writer, sink, backlog, salts, keys, counts, events };
}

function records(lines: readonly string[]): AuditRecord[] {
  return lines.map((line) => {
    const parsed = parseAuditLine(line);
    if (!parsed.ok) throw new Error(parsed.reason);
    return parsed.record;
  });
}

function verifyLines(lines: readonly string[]) {
  const verifier = new ChainVerifier();
  lines.forEach((line, index) => verifier.add({ source: 'x', line: index + 1, offset: 0, bytes: Buffer.from(line) } satisfies AuditLine));
  return verifier.finish();
}

describe('The audit writer', () => {
  it('records in memory only: no key, salt or sink call until the barrier', async () => {
    // Arrange
    const { writer, sink, keys, salts } = writerWith();

    // Act
    writer.record([aDecision(), aDecision({ userId: 'bob' })]);

    // Assess
    expect([sink instanceof MemorySink && sink.appends.length, keys.calls, salts.lookups, writer.backlogInMemory]).toEqual([0, 0, 0, 2]);
    await writer.flush();
    expect(writer.backlogInMemory).toBe(0);
  });

  it('group-commits: three batches flushing together share two appends, in order, one segment', async () => {
    // Arrange
    const { writer, sink } = writerWith();

    // Act
    writer.record([aDecision({ eventId: 'a' })]);
    const first = writer.flush();
    writer.record([aDecision({ eventId: 'b' })]);
    const second = writer.flush();
    writer.record([aDecision({ eventId: 'c' })]);
    const third = writer.flush();
    await Promise.all([first, second, third]);

    // Assess
    const memory = sink as MemorySink;
    expect(memory.appends.map((lines) => lines.length)).toEqual([2, 2]);
    expect(records(memory.lines).map((record) => [record.seq, record.kind])).toEqual([
      [0, 'segment'],
      [1, 'decision'],
      [2, 'decision'],
      [3, 'decision'],
    ]);
    const key = tenantKeyFromMaster(MASTER, 'acme');
    expect(records(memory.lines).slice(1).map((record) => record.kind === 'decision' && record.event)).toEqual(['a', 'b', 'c'].map((eventId) => eventRef(key, eventId)));
    expect(verifyLines(memory.lines).ok).toBe(true);
  });

  it('writes pseudonyms only: no clear event, user or notification id in any line', async () => {
    const { writer, sink, salts } = writerWith();
    writer.record([aDecision({ eventId: 'evt-secret-9', userId: 'alice-secret-9', notificationId: '01JSECRETNOTIFICATION00009' })]);
    await writer.flush();
    const text = (sink as MemorySink).lines.join('\n');
    for (const clear of ['evt-secret-9', 'alice-secret-9', '01JSECRETNOTIFICATION00009']) expect(text).not.toContain(clear);
    const salt = await salts.findSalt('acme', 'alice-secret-9');
    const decision = records((sink as MemorySink).lines)[1]!;
    expect(decision.kind === 'decision' && decision.user).toBe(userRef(userKey(tenantKeyFromMaster(MASTER, 'acme'), salt!, 'alice-secret-9')));
  });

  it('sends a refused group to the backlog as a failover segment after the last durable record; the live segment goes on gap-free', async () => {
    // Arrange
    const { writer, sink, backlog, counts } = writerWith();
    const memory = sink as MemorySink;
    writer.record([aDecision({ eventId: 'a' })]);
    await writer.flush();

    // Act: the sink is down for one group, then back
    memory.available = false;
    writer.record([aDecision({ eventId: 'b' }), aDecision({ eventId: 'c' })]);
    await writer.flush();
    memory.available = true;
    writer.record([aDecision({ eventId: 'd' })]);
    await writer.flush();

    // Assess
    expect(counts).toEqual({ written: 3, buffered: 3, unbuffered: 0 });
    expect(backlog!.messages).toHaveLength(1);
    const failover = backlog!.messages[0]!;
    if (failover.kind !== 'sealed') throw new Error('expected sealed');
    const [header, ...rest] = records(failover.lines);
    const live = records(memory.lines);
    expect(header).toMatchObject({ kind: 'segment', cause: 'failover', after: { segment: live[0]!.segment, seq: 1, hash: live[1]!.hash } });
    expect(rest.map((record) => record.seq)).toEqual([1, 2]);
    expect(live.map((record) => [record.segment, record.seq])).toEqual([0, 1, 2].map((seq) => [live[0]!.segment, seq]));
    // The archive alone verifies; with the drained failover segment appended later it still does.
    expect(verifyLines(memory.lines).ok).toBe(true);
    expect(verifyLines([...memory.lines, ...failover.lines]).ok).toBe(true);
  });

  it('parks decisions it cannot pseudonymize (keys unreadable) in the backlog as raw decisions', async () => {
    const keys = memoryKeys(MASTER);
    keys.failing = true;
    const { writer, backlog, counts, sink } = writerWith({ keys });
    writer.record([aDecision()]);
    writer.recordErasure({ tenantId: 'acme', userId: 'erin', atMs: 1 });
    await writer.flush();
    expect(counts).toEqual({ written: 0, buffered: 2, unbuffered: 0 });
    expect(backlog!.messages).toEqual([{ v: 1, kind: 'raw', decisions: [aDecision()], erasures: [{ tenantId: 'acme', userId: 'erin', atMs: 1 }] }]);
    expect((sink as MemorySink).appends).toEqual([]);
  });

  it('logs and counts what neither the sink nor the backlog take, and still resolves the barrier', async () => {
    const sink = new MemorySink();
    sink.available = false;
    const backlog = new MemoryBacklog();
    backlog.available = false;
    const { writer, counts, events } = writerWith({ sink, backlog });
    writer.record([aDecision()]);
    await expect(writer.flush()).resolves.toBeUndefined();
    expect(counts).toEqual({ written: 0, buffered: 0, unbuffered: 2 });
    const error = events.find((event) => event.level === 'error')!;
    expect(error.message).toContain('in this log line only');
    const parked = error.context.message as { kind: string; lines: string[] };
    expect(parked.kind).toBe('sealed');
    expect(records(parked.lines)[0]).toMatchObject({ kind: 'segment', cause: 'failover' });
  });

  it('starts, after a restart, a segment that follows the last durable record and acknowledges a torn line', async () => {
    const resume: SinkResume = { after: { stream: 'local', segment: '01JAAAAAAAAAAAAAAAAAAAAAAA', seq: 41, hash: 'a'.repeat(64) }, torn: { offset: 9_000, length: 17, sha256: 'b'.repeat(64) } };
    const { writer, sink } = writerWith({ resume });
    writer.record([aDecision()]);
    await writer.flush();
    expect(records((sink as MemorySink).lines)[0]).toMatchObject({ kind: 'segment', seq: 0, cause: 'restart', after: { segment: '01JAAAAAAAAAAAAAAAAAAAAAAA', seq: 41, hash: 'a'.repeat(64) }, torn: resume.torn });
  });

  it('writes an erasure as the unsalted marker only, and decisions about an erased user as "erased"', async () => {
    const salts = new MemorySalts();
    salts.erase('acme', 'erin');
    const { writer, sink } = writerWith({ salts });
    writer.record([aDecision({ userId: 'erin', decision: 'dropped', reason: 'erased_user', stage: 'fanout', channel: 'inbox' })]);
    writer.recordErasure({ tenantId: 'acme', userId: 'erin', atMs: Date.UTC(2026, 0, 2) });
    await writer.flush();
    const [, dropped, erasure] = records((sink as MemorySink).lines);
    expect(dropped).toMatchObject({ kind: 'decision', user: 'erased', notification: null, decision: 'dropped', reason: 'erased_user' });
    expect(erasure).toMatchObject({ kind: 'erasure', tenant: 'acme', marker: erasureMarker(tenantKeyFromMaster(MASTER, 'acme'), 'erin'), at: '2026-01-02T00:00:00.000Z' });
  });

  it('reads salts once per cache period, but an erasure drop always asks the store (a deleted salt is not used from the cache)', async () => {
    let now = Date.UTC(2026, 0, 1);
    const salts = new MemorySalts();
    const { writer, sink } = writerWith({ salts, nowMs: () => now });
    writer.record([aDecision()]);
    await writer.flush();
    writer.record([aDecision({ eventId: 'evt-2' })]);
    await writer.flush();
    expect(salts.lookups).toBe(1);
    salts.erase('acme', 'alice');
    writer.record([aDecision({ eventId: 'evt-3', decision: 'dropped', reason: 'erased_user' })]);
    await writer.flush();
    expect(salts.lookups).toBe(2);
    expect(records((sink as MemorySink).lines).at(-1)).toMatchObject({ user: 'erased' });
    now += 61_000;
    writer.record([aDecision({ eventId: 'evt-4' })]);
    await writer.flush();
    expect(records((sink as MemorySink).lines).at(-1)).toMatchObject({ user: 'erased' });
  });
});
