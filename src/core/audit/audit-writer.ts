/**
 * The audit trail's writer: one per container (Lambda) or per local runtime, one hash-chained
 * stream. Stages hand it decisions through the TraceRecorder port; it never blocks them and never
 * fails a delivery.
 *
 * - `record` only appends to memory (no I/O, no hashing on the delivery path).
 * - `flush` (the barrier: each queue consumer awaits it once per batch, after its pushes and before
 *   its messages are acknowledged) commits everything recorded before it. Commits are sequential and
 *   take everything pending at once, so concurrent batches share one write (group commit): one sink
 *   append (one Firehose PutRecordBatch, or one write + fdatasync locally) per group, not per message.
 * - A group is pseudonymized, sealed after the live segment's head and appended. When the sink
 *   refuses it, the same records are sealed again as a new self-contained `failover` segment (per
 *   backlog chunk) that names the live head it follows, and put on the backlog (a queue) from which a
 *   drainer appends them unchanged once the sink is back; the live segment continues after its last
 *   durable record, so every segment stays gap-free and in order. When the keys or salts cannot be
 *   read, the decisions themselves wait in the backlog (`raw`). When the backlog refuses too, the
 *   records go to the log at ERROR (and a metric): never silently dropped.
 * - `flush` never throws. A crash before a group is durable loses nothing: the messages were not
 *   acknowledged, so the queue redelivers them and their decisions are recorded again (attempt + 1).
 */
import type { AuditRecordContent, SegmentHead } from './chain.js';
import { openSegment, sealAfter } from './chain.js';
import type { AuditDecisionInput } from './decisions.js';
import type { AuditBacklog, AuditBacklogMessage, AuditErasureInput, AuditSink } from './ports.js';
import type { Pseudonymizer } from './pseudonymizer.js';

export type AuditCount = 'written' | 'buffered' | 'unbuffered';

export interface AuditWriterDeps {
  /** This writer's stream name: `local`, or `<function>/<container id>`. */
  stream: string;
  sink: AuditSink;
  backlog?: AuditBacklog;
  pseudonymizer: Pseudonymizer;
  /** A new segment id (ULID). */
  newSegmentId(): string;
  nowMs(): number;
  onEvent(level: 'debug' | 'warn' | 'error', message: string, context: Record<string, unknown>): void;
  /** Records written to the sink, put on the backlog, or only logged (the metrics and alarms). */
  onCount?(count: AuditCount, records: number): void;
  /** Records per sink append (one Firehose record holds at most 1,000 KiB; a record line is about 450 bytes). */
  maxRecordsPerAppend?: number;
  /** Records per backlog message (an SQS message holds 256 KiB). */
  maxRecordsPerBacklogMessage?: number;
}

type Pending = { kind: 'decision'; decision: AuditDecisionInput } | { kind: 'erasure'; erasure: AuditErasureInput };

/** A segment header's link to the record it follows. */
const linkTo = (head: SegmentHead | null | undefined) => (head ? { segment: head.segment, seq: head.seq, hash: head.hash } : null);

const MAX_RECORDS_PER_APPEND = 1_500;
const MAX_RECORDS_PER_BACKLOG_MESSAGE = 400;
/** Items taken into one group at most (memory and latency bound of one commit). */
const MAX_GROUP = 5_000;

export class AuditWriter {
  private pending: Pending[] = [];
  private recorded = 0;
  private committed = 0;
  private committing: Promise<void> | undefined;
  /** The live segment: its durable head, or its header line not yet written. */
  private head: SegmentHead | undefined;
  private headerLine: string | undefined;
  /** The last durable record before the live segment (the resume point), for `after` links. */
  private resumedAfter: SegmentHead | null | undefined;
  /** A torn line the archive found at the resume point (acknowledged by the live segment's header). */
  private torn: { torn?: { offset: number; length: number; sha256: string } } = {};

  constructor(private readonly deps: AuditWriterDeps) {}

  get stream(): string {
    return this.deps.stream;
  }

  /** Keeps the decisions for the next commit (no I/O). */
  record(decisions: readonly AuditDecisionInput[]): void {
    for (const decision of decisions) this.pending.push({ kind: 'decision', decision });
    this.recorded += decisions.length;
  }

  /** An erasure record (the user's unsalted marker), written with the next commit. */
  recordErasure(erasure: AuditErasureInput): void {
    this.pending.push({ kind: 'erasure', erasure });
    this.recorded += 1;
  }

  /** Records not yet committed. */
  get backlogInMemory(): number {
    return this.recorded - this.committed;
  }

  /** Resolves once everything recorded before the call is written, buffered or logged. Never rejects. */
  async flush(): Promise<void> {
    const target = this.recorded;
    while (this.committed < target) {
      this.committing ??= this.commitOnce().finally(() => (this.committing = undefined));
      await this.committing;
    }
  }

  private async commitOnce(): Promise<void> {
    const group = this.pending.splice(0, MAX_GROUP);
    try {
      await this.commitGroup(group);
    } catch (error) {
      // commitGroup handles every failure it expects; this is a bug, and still not a silent loss.
      this.logUnbuffered(group, error);
    } finally {
      this.committed += group.length;
    }
  }

  private async commitGroup(group: readonly Pending[]): Promise<void> {
    if (group.length === 0) return;
    const decisions = group.flatMap((item) => (item.kind === 'decision' ? [item.decision] : []));
    const erasures = group.flatMap((item) => (item.kind === 'erasure' ? [item.erasure] : []));
    let contents: AuditRecordContent[];
    try {
      contents = await this.deps.pseudonymizer.contentsOf(decisions, erasures);
    } catch (error) {
      this.deps.onEvent('warn', 'audit keys or salts unreadable: decisions wait in the audit backlog', { records: group.length, error: String(error) });
      await this.toBacklog([{ v: 1, kind: 'raw', decisions, erasures }], group.length, error);
      return;
    }
    await this.ensureResumed();
    const chunk = this.deps.maxRecordsPerAppend ?? MAX_RECORDS_PER_APPEND;
    for (let start = 0; start < contents.length; start += chunk) {
      const part = contents.slice(start, start + chunk);
      if (!(await this.appendToLiveSegment(part))) {
        await this.failover(contents.slice(start));
        return;
      }
    }
  }

  /** Seals `contents` after the live head and appends them (with the segment's header if not yet written). */
  private async appendToLiveSegment(contents: readonly AuditRecordContent[]): Promise<boolean> {
    if (!this.head) {
      const opened = openSegment(this.deps.stream, this.deps.newSegmentId(), { at: new Date(this.deps.nowMs()).toISOString(), cause: this.resumedAfter ? 'restart' : 'start', after: linkTo(this.resumedAfter), ...this.torn });
      this.head = opened.head;
      this.headerLine = opened.line;
    }
    const sealed = sealAfter(this.head, contents);
    const lines = this.headerLine ? [this.headerLine, ...sealed.lines] : sealed.lines;
    try {
      await this.deps.sink.append(lines);
    } catch (error) {
      this.deps.onEvent('warn', 'audit sink refused a write: the records go to the audit backlog', { stream: this.deps.stream, records: contents.length, error: String(error) });
      return false;
    }
    this.head = sealed.head;
    this.headerLine = undefined;
    this.deps.onCount?.('written', lines.length);
    return true;
  }

  /** The records again, as failover segments (one per backlog message) after the last durable record. */
  private async failover(contents: readonly AuditRecordContent[]): Promise<void> {
    const after = this.headerLine ? (this.resumedAfter ?? null) : (this.head ?? null);
    const size = this.deps.maxRecordsPerBacklogMessage ?? MAX_RECORDS_PER_BACKLOG_MESSAGE;
    const messages: AuditBacklogMessage[] = [];
    for (let start = 0; start < contents.length; start += size) {
      const opened = openSegment(this.deps.stream, this.deps.newSegmentId(), { at: new Date(this.deps.nowMs()).toISOString(), cause: 'failover', after: linkTo(after) });
      const sealed = sealAfter(opened.head, contents.slice(start, start + size));
      messages.push({ v: 1, kind: 'sealed', lines: [opened.line, ...sealed.lines] });
    }
    await this.toBacklog(messages, contents.length);
  }

  private async toBacklog(messages: readonly AuditBacklogMessage[], records: number, cause?: unknown): Promise<void> {
    for (const message of messages) {
      const count = message.kind === 'sealed' ? message.lines.length : message.decisions.length + message.erasures.length;
      try {
        if (!this.deps.backlog) throw new Error('no audit backlog configured');
        await this.deps.backlog.put(message);
        this.deps.onCount?.('buffered', count);
      } catch (error) {
        this.deps.onCount?.('unbuffered', count);
        // The last resort: the log keeps them (and the alarm on the metric says so).
        this.deps.onEvent('error', 'audit records could be neither written nor buffered: they are in this log line only', { stream: this.deps.stream, records, error: String(error), cause: cause === undefined ? undefined : String(cause), message });
      }
    }
  }

  /** Once per writer: where the stream continues (a readable archive), before the first segment opens. */
  private async ensureResumed(): Promise<void> {
    if (this.resumedAfter !== undefined) return;
    if (!this.deps.sink.resume) {
      this.resumedAfter = null;
      return;
    }
    try {
      const resume = await this.deps.sink.resume(this.deps.stream);
      this.resumedAfter = resume.after;
      this.torn = resume.torn ? { torn: resume.torn } : {};
    } catch (error) {
      // Unreadable archive: start unlinked (the verifier reports the missing link, not a silent gap).
      this.deps.onEvent('warn', 'audit archive unreadable at start: the new segment links to nothing', { stream: this.deps.stream, error: String(error) });
      this.resumedAfter = null;
    }
  }

  private logUnbuffered(group: readonly Pending[], error: unknown): void {
    this.deps.onCount?.('unbuffered', group.length);
    this.deps.onEvent('error', 'audit commit failed: the records are in this log line only', { stream: this.deps.stream, error: String(error), records: group });
  }
}
