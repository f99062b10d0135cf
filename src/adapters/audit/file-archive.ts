/**
 * The local audit archive: an append-only JSONL file, `DATA_DIR/audit/audit.jsonl`, in the format of
 * the S3 archive (src/contract/audit-record.ts). The local runtime's writer appends whole groups, one
 * write(2) each (the group commit: the records of every batch that flushed meanwhile share it): once
 * it returns, a kill -9 cannot lose them. The disk sync is not on that path: an fdatasync runs at most
 * every `syncIntervalMs` after writes (and at close), off the delivery path, so a power loss can lose
 * the last interval (the local queue journal does not sync receives and deletes either).
 *
 * The runtime's archive is the file's owner: it reads the file once before its first append (the
 * streams' last records, the backlog segments already there) and terminates a torn last line left by
 * a crash mid-write, which the writer's next segment then acknowledges (the verifier accepts it);
 * nothing here ever rewrites or cuts a byte. The erase CLI appends its own segment to the same file as
 * a guest (`owner: false`: no scan, no repair; O_APPEND keeps each write whole).
 */
import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, stat, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAuditLine, sha256Hex, type AuditLine, type SegmentHead } from '../../core/audit/chain.js';
import { linesOf } from '../../core/audit/lines.js';
import type { AuditSink, SinkResume } from '../../core/audit/ports.js';

export const AUDIT_ARCHIVE_FILE = 'audit.jsonl';

export interface FileAuditArchiveOptions {
  /** The longest a written group waits for its fdatasync (default 1,000 ms); 0 syncs after every append (tests, the CLI). */
  syncIntervalMs?: number;
  /** The runtime's archive (default): scans the file once and repairs a torn tail before its first append. A guest only appends. */
  owner?: boolean;
}

interface ArchiveScan {
  heads: Map<string, SegmentHead>;
  torn?: { offset: number; length: number; sha256: string };
}

export const ARCHIVE_SYNC_INTERVAL_MS_DEFAULT = 1_000;

const segmentKey = (stream: string, segment: string) => `${stream}\u0000${segment}`;

export class FileAuditArchive implements AuditSink {
  private handle: Promise<FileHandle> | undefined;
  /** Last seq of every segment in the file: a redelivered backlog segment is not appended twice. */
  private readonly lastSeqs = new Map<string, number>();
  private writes: Promise<void> = Promise.resolve();
  private scan: Promise<ArchiveScan> | undefined;
  private tornReported = false;
  private syncTimer: NodeJS.Timeout | undefined;
  private unsynced = false;
  /** fdatasync calls made (tests and the bench check the batching). */
  syncCount = 0;

  constructor(
    readonly dir: string,
    private readonly options: FileAuditArchiveOptions = {},
  ) {}

  get file(): string {
    return join(this.dir, AUDIT_ARCHIVE_FILE);
  }

  /** Where `stream` continues: its last record in the file, and (to one caller) a torn last line the file ended with. */
  async resume(stream: string): Promise<SinkResume> {
    const scan = await this.open();
    const torn = scan.torn && !this.tornReported ? scan.torn : undefined;
    if (torn) this.tornReported = true;
    return { after: scan.heads.get(stream) ?? null, ...(torn ? { torn } : {}) };
  }

  /** The owner's one read of the file (before its first append): heads, copies index, torn tail terminated. */
  open(): Promise<ArchiveScan> {
    this.scan ??= this.scanFile();
    return this.scan;
  }

  async append(lines: readonly string[]): Promise<void> {
    if (this.options.owner ?? true) await this.open();
    const fresh = this.withoutCopies(lines);
    if (fresh.length === 0) return;
    await this.write(`${fresh.join('\n')}\n`);
    for (const line of fresh) this.remember(line);
  }

  async close(): Promise<void> {
    await this.writes.catch(() => undefined);
    clearTimeout(this.syncTimer);
    this.syncTimer = undefined;
    const handle = await this.handle?.catch(() => undefined);
    this.handle = undefined;
    if (handle && this.unsynced) await this.datasync(handle);
    await handle?.close();
  }

  private async scanFile(): Promise<ArchiveScan> {
    await mkdir(this.dir, { recursive: true });
    const heads = new Map<string, SegmentHead>();
    let size = 0;
    let lastLine: AuditLine | undefined;
    try {
      size = (await stat(this.file)).size;
    } catch {
      return { heads };
    }
    for await (const line of linesOf(this.file, createReadStream(this.file))) {
      lastLine = line;
      const parsed = parseAuditLine(line.bytes.toString('utf8'));
      if (!parsed.ok) continue;
      const record = parsed.record;
      this.lastSeqs.set(segmentKey(record.stream, record.segment), record.seq);
      heads.set(record.stream, { stream: record.stream, segment: record.segment, seq: record.seq, hash: record.hash });
    }
    if (!lastLine || lastLine.offset + lastLine.bytes.length < size) return { heads };
    // The file does not end with a newline: the last line is torn. End it, and let the writer's new segment say so.
    const torn = { offset: lastLine.offset, length: lastLine.bytes.length, sha256: sha256Hex(lastLine.bytes) };
    await this.write('\n');
    return { heads, torn };
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

  /** Appends are serialized (one write each); the fdatasync follows within the sync interval. */
  private write(text: string): Promise<void> {
    const run = this.writes.then(async () => {
      this.handle ??= mkdir(this.dir, { recursive: true }).then(() => open(this.file, 'a', 0o600));
      const handle = await this.handle;
      await handle.appendFile(text, 'utf8');
      this.unsynced = true;
      const interval = this.options.syncIntervalMs ?? ARCHIVE_SYNC_INTERVAL_MS_DEFAULT;
      if (interval <= 0) await this.datasync(handle);
      else this.syncTimer ??= setTimeout(() => void this.syncLater(), interval);
    });
    this.writes = run.catch(() => undefined);
    return run;
  }

  private async syncLater(): Promise<void> {
    this.syncTimer = undefined;
    const handle = await this.handle?.catch(() => undefined);
    if (handle && this.unsynced) await this.datasync(handle).catch(() => undefined);
  }

  private async datasync(handle: FileHandle): Promise<void> {
    this.unsynced = false;
    await handle.datasync();
    this.syncCount += 1;
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
