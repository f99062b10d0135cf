/**
 * The audit trail's hash chain: sealed lines verify; one changed byte (anywhere), a deleted line, two
 * swapped lines, a copied line, a dropped segment tail or an unacknowledged torn line fails and is
 * named by its line; hostile ids stay on one line and verify.
 */
import { describe, expect, it } from 'vitest';
import type { AuditDecisionRecord } from '../../src/contract/audit-record.js';
import { ChainVerifier, openSegment, parseAuditLine, sealAfter, sha256Hex, type AuditRecordContent, type VerifyReport } from '../../src/core/audit/chain.js';

const SEGMENT_A = '01JAAAAAAAAAAAAAAAAAAAAAAA';
const SEGMENT_B = '01JBBBBBBBBBBBBBBBBBBBBBBB';

function decision(index: number, tenant = 'acme'): AuditRecordContent {
  return {
    kind: 'decision',
    at: new Date(Date.UTC(2026, 0, 1, 0, 0, index)).toISOString(),
    tenant,
    event: `e1.${String(index).padStart(24, 'E')}`,
    user: `u1.${String(index % 7).padStart(24, 'U')}`,
    notification: null,
    stage: 'live',
    channel: 'live',
    decision: index % 3 === 0 ? 'held' : 'pushed',
    reason: index % 3 === 0 ? 'quiet_hours' : null,
    attempt: 1 + (index % 2),
  } satisfies Omit<AuditDecisionRecord, 'v' | 'stream' | 'segment' | 'seq' | 'prev'>;
}

function segmentLines(count: number, segment = SEGMENT_A, stream = 'local'): string[] {
  const opened = openSegment(stream, segment, { at: '2026-01-01T00:00:00.000Z', cause: 'start', after: null });
  return [opened.line, ...sealAfter(opened.head, Array.from({ length: count }, (_, index) => decision(index))).lines];
}

function verify(lines: ReadonlyArray<string | Buffer>, options = { tolerateDuplicates: false }): VerifyReport {
  const verifier = new ChainVerifier(options);
  let offset = 0;
  lines.forEach((text, index) => {
    const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
    verifier.add({ source: 'audit.jsonl', line: index + 1, offset, bytes });
    offset += bytes.length + 1;
  });
  return verifier.finish();
}

/** A seeded generator, so a failure names its seed and replays. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

describe('The audit chain', () => {
  it('verifies sealed segments, interleaved streams and segments included', () => {
    // Arrange
    const a = segmentLines(5);
    const b = segmentLines(4, SEGMENT_B, 'delivery-urgent/abc');

    // Act
    const report = verify([a[0]!, b[0]!, a[1]!, a[2]!, b[1]!, b[2]!, a[3]!, b[3]!, a[4]!, a[5]!, b[4]!]);

    // Assess
    expect(report).toMatchObject({ ok: true, records: 11, segments: 2, problems: [] });
    expect(report.heads.map((head) => [head.stream, head.seq])).toEqual([
      ['delivery-urgent/abc', 4],
      ['local', 5],
    ]);
  });

  it('hashes the exact bytes: the hash is the SHA-256 of the line before ,"hash":', () => {
    const [line] = segmentLines(0);
    const parsed = parseAuditLine(line!);
    expect(parsed.ok).toBe(true);
    expect(sha256Hex(`${line!.slice(0, line!.indexOf(',"hash":'))}}`)).toBe(parsed.ok && parsed.record.hash);
  });

  it('fails on one changed byte at any position of any line, naming that line (seeded sweep)', () => {
    const lines = segmentLines(6);
    const seed = 20261126;
    const next = random(seed);
    for (let trial = 0; trial < 300; trial += 1) {
      const lineIndex = Math.floor(next() * lines.length);
      const bytes = Buffer.from(lines[lineIndex]!, 'utf8');
      const position = Math.floor(next() * bytes.length);
      const changed = Buffer.from(bytes);
      changed[position] = changed[position]! ^ (1 + Math.floor(next() * 254));
      const tampered: Array<string | Buffer> = [...lines];
      tampered[lineIndex] = changed;
      const report = verify(tampered);
      expect(report.ok, `seed ${seed} trial ${trial}: line ${lineIndex + 1} byte ${position}`).toBe(false);
      expect(report.problems.map((problem) => problem.line), `seed ${seed} trial ${trial}`).toContain(lineIndex + 1);
    }
  });

  it('fails on a deleted line and names where the gap is', () => {
    const lines = segmentLines(5);
    const report = verify([...lines.slice(0, 3), ...lines.slice(4)]);
    expect(report.ok).toBe(false);
    expect(report.problems).toEqual([{ source: 'audit.jsonl', line: 4, message: `segment ${SEGMENT_A} seq 4: record seq 3 is missing before this line (dropped or moved)` }]);
  });

  it('fails on two swapped lines and names both', () => {
    const lines = segmentLines(5);
    const swapped = [...lines];
    [swapped[2], swapped[3]] = [swapped[3]!, swapped[2]!];
    const report = verify(swapped);
    expect(report.ok).toBe(false);
    expect(report.problems.map((problem) => problem.line)).toEqual([3, 4]);
    expect(report.problems[1]!.message).toContain('out of order');
  });

  it('fails on a copied line, and tolerates exact copies only when asked (Firehose is at-least-once)', () => {
    const lines = segmentLines(3);
    const copied = [...lines.slice(0, 3), lines[2]!, lines[3]!];
    expect(verify(copied).problems).toEqual([{ source: 'audit.jsonl', line: 4, message: `segment ${SEGMENT_A} seq 2: the record appears again (a copy of an earlier line)` }]);
    expect(verify(copied, { tolerateDuplicates: true })).toMatchObject({ ok: true, duplicates: 1 });
  });

  it('fails on a record inserted with a recomputed hash (its prev or seq gives it away)', () => {
    const lines = segmentLines(3);
    const opened = openSegment('local', SEGMENT_A, { at: '2026-01-01T00:00:00.000Z', cause: 'start', after: null });
    const forged = sealAfter(opened.head, [decision(99)]).lines[0]!;
    const report = verify([lines[0]!, lines[1]!, forged, lines[2]!, lines[3]!]);
    expect(report.ok).toBe(false);
    expect(report.problems[0]!.line).toBe(3);
  });

  it('fails on a record replaced by another with a valid hash of its own: the next record\'s prev names it', () => {
    const lines = segmentLines(4);
    const opened = openSegment('local', SEGMENT_A, { at: '2026-01-01T00:00:00.000Z', cause: 'start', after: null });
    const upTo1 = sealAfter(opened.head, [decision(0)]);
    const replacement = sealAfter(upTo1.head, [decision(42)]).lines[0]!;
    const report = verify([lines[0]!, lines[1]!, replacement, lines[3]!, lines[4]!]);
    expect(report.problems).toEqual([{ source: 'audit.jsonl', line: 4, message: `segment ${SEGMENT_A} seq 3: prev does not match the hash of seq 2 (audit.jsonl:3): that record was replaced, or this one was` }]);
  });

  it('detects a dropped segment tail through the next segment\'s after link', () => {
    const first = segmentLines(4);
    const tail = parseAuditLine(first[4]!);
    if (!tail.ok) throw new Error('unreadable');
    const next = openSegment('local', SEGMENT_B, { at: '2026-01-01T00:01:00.000Z', cause: 'restart', after: { segment: SEGMENT_A, seq: tail.record.seq, hash: tail.record.hash } });
    expect(verify([...first, next.line]).ok).toBe(true);
    const report = verify([...first.slice(0, 4), next.line]);
    expect(report.ok).toBe(false);
    expect(report.problems).toEqual([{ source: 'audit.jsonl', line: 5, message: `segment ${SEGMENT_B}: it follows segment ${SEGMENT_A} seq 4, which is missing or was changed (records dropped)` }]);
  });

  it('accepts a torn line only where a later segment acknowledges its exact bytes', () => {
    const first = segmentLines(2);
    const torn = first[2]!.slice(0, 40);
    const offset = Buffer.byteLength(`${first[0]}\n${first[1]}\n`);
    const ack = openSegment('local', SEGMENT_B, { at: '2026-01-01T00:01:00.000Z', cause: 'restart', after: null, torn: { offset, length: Buffer.byteLength(torn), sha256: sha256Hex(torn) } });
    const acknowledged = verify([first[0]!, first[1]!, torn, ack.line]);
    expect(acknowledged.ok).toBe(true);
    expect(acknowledged.warnings.map((warning) => warning.line)).toEqual([3]);
    const unacknowledged = verify([first[0]!, first[1]!, torn]);
    expect(unacknowledged.problems).toEqual([{ source: 'audit.jsonl', line: 3, message: 'unreadable line: not JSON' }]);
  });

  it('fails a segment whose start was cut off', () => {
    const lines = segmentLines(3);
    expect(verify(lines.slice(2)).problems[0]).toEqual({ source: 'audit.jsonl', line: 1, message: `segment ${SEGMENT_A} seq 2: the segment's records 0..1 are missing (dropped) or its start was changed` });
  });

  it.each([
    ['__proto__'],
    ['constructor'],
    ['tën"ant\n{"v":1}\r\u2028\u2029'],
    ['\u0000\u001f\\"}{'],
    ['🦄 ünïcödé'],
  ])('keeps a hostile tenant id %j on one line, escaped, and verifiable', (tenant) => {
    const opened = openSegment('local', SEGMENT_A, { at: '2026-01-01T00:00:00.000Z', cause: 'start', after: null });
    const { lines } = sealAfter(opened.head, [decision(1, tenant)]);
    expect(lines[0]).not.toMatch(/[\n\r]/);
    const parsed = parseAuditLine(lines[0]!);
    expect(parsed.ok && parsed.record.kind === 'decision' && parsed.record.tenant).toBe(tenant);
    expect(verify([opened.line, ...lines]).ok).toBe(true);
  });
});
