/**
 * The hash chain of the audit trail (pure): sealing records into lines, and checking lines.
 *
 * A line is the record's JSON with `"hash"` as its last member; `hash` = SHA-256 (hex) of the exact
 * bytes before `,"hash":` plus the closing brace, and `prev` (inside those bytes) is the previous
 * record's `hash` in the same segment (64 zeros for the segment's first record, seq 0). So changing
 * any byte of a record breaks its own hash, dropping one breaks the next one's `prev` (and leaves a
 * gap in `seq`), and swapping two puts `seq` out of order. Each segment starts with a `segment`
 * record that names the record it follows (`after`), so a dropped tail of one segment shows at the
 * next. The newest record of each stream has no successor: `verify` prints it (the heads) so an
 * operator can compare it with a copy kept elsewhere.
 */
import { createHash } from 'node:crypto';
import { auditRecordSchema, AUDIT_RECORD_VERSION, type AuditRecord, type AuditRecordBody, type AuditSegmentRecord } from '../../contract/audit-record.js';

export const GENESIS_HASH = '0'.repeat(64);
const HASH_SUFFIX_LENGTH = ',"hash":"'.length + 64 + '"}'.length;
/** Hash characters kept per record for the `after` links (collisions would need 64-bit luck). */
const KEPT_HASH_CHARACTERS = 16;

type LinkFields = 'v' | 'stream' | 'segment' | 'seq' | 'prev';
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
/** A record's content: what the writer decides; the chain adds the link fields. */
export type AuditRecordContent = DistributiveOmit<AuditRecordBody, LinkFields>;

/** The last record of a segment (where the next one links). */
export interface SegmentHead {
  stream: string;
  segment: string;
  seq: number;
  hash: string;
}

export function sha256Hex(bytes: string | Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** One record as a line (no newline): the body JSON with its hash appended as the last member. */
export function sealRecord(body: AuditRecordBody): { line: string; hash: string } {
  const json = JSON.stringify(body);
  const hash = sha256Hex(json);
  return { line: `${json.slice(0, -1)},"hash":"${hash}"}`, hash };
}

/** Seals `contents` after `head` (seq + 1, ...), in order. */
export function sealAfter(head: SegmentHead, contents: readonly AuditRecordContent[]): { lines: string[]; head: SegmentHead } {
  const lines: string[] = [];
  let { seq, hash } = head;
  for (const content of contents) {
    seq += 1;
    const sealed = sealRecord({ v: AUDIT_RECORD_VERSION, stream: head.stream, segment: head.segment, seq, prev: hash, ...content } as AuditRecordBody);
    lines.push(sealed.line);
    hash = sealed.hash;
  }
  return { lines, head: { stream: head.stream, segment: head.segment, seq, hash } };
}

/** A new segment's first record (seq 0). */
export function openSegment(stream: string, segment: string, header: Omit<AuditSegmentRecord, LinkFields | 'kind'>): { line: string; head: SegmentHead } {
  const sealed = sealRecord({ v: AUDIT_RECORD_VERSION, stream, segment, seq: 0, prev: GENESIS_HASH, kind: 'segment', ...header });
  return { line: sealed.line, head: { stream, segment, seq: 0, hash: sealed.hash } };
}

export type ParsedLine = { ok: true; record: AuditRecord } | { ok: false; reason: string };

/** Parses and checks one line on its own: JSON, schema, and its hash over its exact bytes. */
export function parseAuditLine(text: string): ParsedLine {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'not JSON' };
  }
  const parsed = auditRecordSchema.safeParse(value);
  if (!parsed.success) return { ok: false, reason: `not an audit record (${parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; ')})` };
  const record = parsed.data;
  const suffix = `,"hash":"${record.hash}"}`;
  if (!text.endsWith(suffix) || text.length < HASH_SUFFIX_LENGTH) return { ok: false, reason: '"hash" is not the last member of the line' };
  if (sha256Hex(`${text.slice(0, -suffix.length)}}`) !== record.hash) return { ok: false, reason: 'hash mismatch: the record was changed' };
  return { ok: true, record };
}

/** One line as read: where it is (file or object, 1-based line, byte offset) and its bytes without the newline. */
export interface AuditLine {
  source: string;
  line: number;
  offset: number;
  bytes: Buffer;
}

export interface AuditProblem {
  source: string;
  line: number;
  message: string;
}

export interface StreamHead extends SegmentHead {
  at: string;
  source: string;
  line: number;
}

export interface VerifyReport {
  ok: boolean;
  lines: number;
  records: number;
  segments: number;
  /** Exact copies of a record already seen (Firehose is at-least-once); problems unless tolerated. */
  duplicates: number;
  problems: AuditProblem[];
  /** Acknowledged torn lines (a crash mid-append, nothing acknowledged was in them). */
  warnings: AuditProblem[];
  /** The newest record of each stream: anchors to compare with a copy kept elsewhere. */
  heads: StreamHead[];
}

interface SegmentState {
  stream: string;
  lastSeq: number;
  lastHash: string;
  /** Where the last record was read. */
  lastAt: { source: string; line: number };
  /** Hash prefix of every record, by seq (for the `after` links of later segments). */
  hashes: string[];
}

interface PendingLink {
  at: AuditProblem;
  stream: string;
  after: NonNullable<AuditSegmentRecord['after']>;
}

interface UnreadableLine {
  at: AuditProblem;
  offset: number;
  length: number;
  sha256: string;
}

/**
 * Checks lines in the order they were read (strict: within a segment, records must come in `seq`
 * order, each linking to the one before). Records of different segments and streams may interleave.
 */
export class ChainVerifier {
  private readonly segments = new Map<string, SegmentState>();
  private readonly heads = new Map<string, StreamHead>();
  private readonly links: PendingLink[] = [];
  private readonly unreadable: UnreadableLine[] = [];
  private readonly torn: Array<{ source: string; offset: number; length: number; sha256: string }> = [];
  private readonly problems: AuditProblem[] = [];
  private lines = 0;
  private records = 0;
  private duplicates = 0;

  constructor(private readonly options: { tolerateDuplicates: boolean } = { tolerateDuplicates: false }) {}

  /** Checks one line; answers the record when the line is a valid, in-order link (or a tolerated copy). */
  add(input: AuditLine): AuditRecord | undefined {
    this.lines += 1;
    const at = { source: input.source, line: input.line };
    const text = input.bytes.toString('utf8');
    if (text.trim().length === 0) return undefined;
    const parsed = parseAuditLine(text);
    if (!parsed.ok) {
      this.unreadable.push({ at: { ...at, message: parsed.reason }, offset: input.offset, length: input.bytes.length, sha256: sha256Hex(input.bytes) });
      return undefined;
    }
    const record = parsed.record;
    const key = `${record.stream}\u0000${record.segment}`;
    const where = `segment ${record.segment} seq ${record.seq}`;
    const state = this.segments.get(key);
    if (!state) {
      if (record.seq !== 0 || record.kind !== 'segment') {
        this.problem(at, `${where}: the segment's records 0..${record.seq - 1} are missing (dropped) or its start was changed`);
      } else if (record.prev !== GENESIS_HASH) {
        this.problem(at, `${where}: a segment's first record must have prev = 64 zeros`);
      }
      this.segments.set(key, { stream: record.stream, lastSeq: record.seq, lastHash: record.hash, lastAt: at, hashes: this.keepHash([], record.seq, record.hash) });
      return this.accept(record, at);
    }
    if (record.seq <= state.lastSeq) {
      const seen = state.hashes[record.seq];
      if (seen !== undefined && seen === record.hash.slice(0, KEPT_HASH_CHARACTERS)) {
        this.duplicates += 1;
        if (!this.options.tolerateDuplicates) this.problem(at, `${where}: the record appears again (a copy of an earlier line)`);
        return undefined;
      }
      this.problem(at, `${where}: out of order after seq ${state.lastSeq} (records were reordered or a record was inserted)`);
      return undefined;
    }
    if (record.seq > state.lastSeq + 1) {
      const missing = record.seq - state.lastSeq - 1;
      this.problem(at, `${where}: ${missing === 1 ? `record seq ${state.lastSeq + 1} is` : `records seq ${state.lastSeq + 1}..${record.seq - 1} are`} missing before this line (dropped or moved)`);
    } else if (record.prev !== state.lastHash) {
      this.problem(at, `${where}: prev does not match the hash of seq ${state.lastSeq} (${state.lastAt.source}:${state.lastAt.line}): that record was replaced, or this one was`);
    }
    if (record.kind === 'segment') this.problem(at, `${where}: a segment record inside a segment`);
    state.lastSeq = record.seq;
    state.lastHash = record.hash;
    state.lastAt = at;
    this.keepHash(state.hashes, record.seq, record.hash);
    return this.accept(record, at);
  }

  finish(): VerifyReport {
    const warnings: AuditProblem[] = [];
    for (const line of this.unreadable) {
      const acknowledged = this.torn.some((torn) => torn.source === line.at.source && torn.offset === line.offset && torn.length === line.length && torn.sha256 === line.sha256);
      if (acknowledged) warnings.push({ ...line.at, message: 'torn line (a crash during an append), acknowledged by the writer when it restarted' });
      else this.problems.push({ ...line.at, message: `unreadable line: ${line.at.message}` });
    }
    for (const link of this.links) {
      const state = this.segments.get(`${link.stream}\u0000${link.after.segment}`);
      const hash = state?.hashes[link.after.seq];
      if (hash !== link.after.hash.slice(0, KEPT_HASH_CHARACTERS)) {
        this.problems.push({
          ...link.at,
          message: `${link.at.message}: it follows segment ${link.after.segment} seq ${link.after.seq}, which ${state ? 'is missing or was changed' : 'is not in the trail'} (records dropped)`,
        });
      }
    }
    this.problems.sort((a, b) => a.source.localeCompare(b.source) || a.line - b.line);
    return {
      ok: this.problems.length === 0,
      lines: this.lines,
      records: this.records,
      segments: this.segments.size,
      duplicates: this.duplicates,
      problems: this.problems,
      warnings,
      heads: [...this.heads.values()].sort((a, b) => a.stream.localeCompare(b.stream)),
    };
  }

  private accept(record: AuditRecord, at: { source: string; line: number }): AuditRecord {
    this.records += 1;
    if (record.kind === 'segment') {
      if (record.after) this.links.push({ at: { ...at, message: `segment ${record.segment}` }, stream: record.stream, after: record.after });
      if (record.torn) this.torn.push({ source: at.source, ...record.torn });
    }
    // The newest in reading order: a writer appends in order, so its last line is its head.
    this.heads.set(record.stream, { stream: record.stream, segment: record.segment, seq: record.seq, hash: record.hash, at: record.at, ...at });
    return record;
  }

  private keepHash(hashes: string[], seq: number, hash: string): string[] {
    hashes[seq] = hash.slice(0, KEPT_HASH_CHARACTERS);
    return hashes;
  }

  private problem(at: { source: string; line: number }, message: string): void {
    this.problems.push({ ...at, message });
  }
}
