/**
 * The local audit archive: an append-only JSONL file, `DATA_DIR/audit/audit.jsonl`, in the format of
 * the S3 archive (src/contract/audit-record.ts). The local runtime's writer appends whole groups,
 * one write(2) each followed by one fdatasync (the group commit: the records of every batch that
 * flushed meanwhile share it); the erase CLI appends its own segment to the same file (O_APPEND keeps
 * each write whole). Nothing here ever rewrites a byte: a torn last line left by a crash mid-write is
 * terminated and acknowledged by the next segment's header (the verifier then accepts it), never cut.
 */
import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, stat, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAuditLine, sha256Hex, type AuditLine, type SegmentHead } from '../../core/audit/chain.js';
import { linesOf } from '../../core/audit/lines.js';
import type { AuditSink, SinkResume } from '../../core/audit/ports.js';

export const AUDIT_ARCHIVE_FILE = 'audit.jsonl';

export interface FileAuditArchiveOptions {
  /** fdatasync after each append (default true: an acknowledged batch's decisions survive a power loss too). */
  sync?: boolean;
}

const segmentKey = (stream: string, segment: string) => `${stream}\u0000${segment}`;

export class FileAuditArchive implements AuditSink {
  private handle: Promise<FileHandle> | undefined;
  /** Last seq of every segment in the file: a redelivered backlog segment is not appended twice. */
  private readonly lastSeqs = new Map<string, number>();
  private writes: Promise<void> = Promise.resolve();

  constructor(
    readonly dir: string,
    private readonly options: FileAuditArchiveOptions = {},
  ) {}

  get file(): string {
    return join(this.dir, AUDIT_ARCHIVE_FILE);
  }

  /** Reads the archive once: the stream's last record, and a torn last line, which it terminates. */
  async resume(stream: string): Promise<SinkResume> {
    await mkdir(this.dir, { recursive: true });
    let after: SegmentHead | null = null;
    let size = 0;
    let lastLine: AuditLine | undefined;
    try {
      size = (await stat(this.file)).size;
    } catch {
      return { after };
    }
    for await (const line of linesOf(this.file, createReadStream(this.file))) {
      lastLine = line;
      const parsed = parseAuditLine(line.bytes.toString('utf8'));
      if (!parsed.ok) continue;
      const record = parsed.record;
      this.lastSeqs.set(segmentKey(record.stream, record.segment), record.seq);
      if (record.stream === stream) after = { stream, segment: record.segment, seq: record.seq, hash: record.hash };
    }
    if (!lastLine || lastLine.offset + lastLine.bytes.length < size) return { after };
    // The file does not end with a newline: the last line is torn. End it, and let the new segment say so.
    const torn = { offset: lastLine.offset, length: lastLine.bytes.length, sha256: sha256Hex(lastLine.bytes) };
    await this.write('\n');
    return { after, torn };
  }

  async append(lines: readonly string[]): Promise<void> {
    const fresh = this.withoutCopies(lines);
    if (fresh.length === 0) return;
    await this.write(`${fresh.join('\n')}\n`);
    for (const line of fresh) this.remember(line);
  }

  async close(): Promise<void> {
    await this.writes.catch(() => undefined);
    const handle = await this.handle?.catch(() => undefined);
    this.handle = undefined;
    await handle?.close();
  }

  /** A backlog segment delivered twice (a drainer crashed after appending it) is skipped whole. */
  private withoutCopies(lines: readonly string[]): readonly string[] {
    const first = lines[0];
    if (!first) return lines;
    const head = /^\{"v":1,"stream":("(?:[^"\\]|\\.)*"),"segment":"([0-9A-Z]{26})","seq":(\d+),/.exec(first);
    if (!head) return lines;
    const written = this.lastSeqs.get(segmentKey(JSON.parse(head[1]!) as string, head[2]!));
    if (written === undefined || written < Number(head[3])) return lines;
    return lines.filter((line) => {
      const seq = /,"seq":(\d+),/.exec(line);
      return !seq || Number(seq[1]) > written;
    });
  }

  private remember(line: string): void {
    const head = /^\{"v":1,"stream":("(?:[^"\\]|\\.)*"),"segment":"([0-9A-Z]{26})","seq":(\d+),/.exec(line);
    if (head) this.lastSeqs.set(segmentKey(JSON.parse(head[1]!) as string, head[2]!), Number(head[3]));
  }

  /** Appends are serialized (one write, then one fdatasync, each). */
  private write(text: string): Promise<void> {
    const run = this.writes.then(async () => {
      this.handle ??= mkdir(this.dir, { recursive: true }).then(() => open(this.file, 'a', 0o600));
      const handle = await this.handle;
      await handle.appendFile(text, 'utf8');
      if (this.options.sync ?? true) await handle.datasync();
    });
    this.writes = run.catch(() => undefined);
    return run;
  }
}

/** The archive's files in order (the writer appends to one; rotated or copied ones sort before it). */
export async function archiveFiles(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).filter((name) => name.endsWith('.jsonl')).sort((a, b) => (a === AUDIT_ARCHIVE_FILE ? 1 : b === AUDIT_ARCHIVE_FILE ? -1 : a.localeCompare(b))).map((name) => join(dir, name));
  } catch {
    return [];
  }
}

/** Every line of the local archive, in order. */
export async function* readLocalArchive(dir: string): AsyncGenerator<AuditLine> {
  for (const file of await archiveFiles(dir)) yield* linesOf(file, createReadStream(file));
}
