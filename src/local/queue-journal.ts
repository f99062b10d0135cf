/**
 * The durable store of one local SQS queue: an append-only journal of JSON lines,
 * `<dir>/<queue name>.jsonl`, so a restart of the local runtime loses no accepted message.
 *
 * Records: `sent` (id, body, sentAt; after a compaction also the receive count `n` and first
 * receive time `at`), `received` (id, n, at), `deleted` (id), `dlq` (id, moved to the dead-letter
 * queue, which journals its own `sent` first) and `purged`. Replaying them in order gives the
 * messages not yet deleted, with their receive counts.
 *
 * Sync policy: every record is written with a synchronous write(2) before the queue operation
 * returns, so it survives the process ending at any point (Ctrl+C, crash, kill -9). `sent` records
 * are also fdatasync'd before the sender is answered (one sync per SendMessage / SendMessageBatch),
 * so an accepted message survives a power loss too; `received` / `deleted` / `dlq` records are not
 * synced (losing one means a redelivery or a lower receive count: at-least-once, as on AWS).
 *
 * Compaction: on open (which also drops a torn last line left by a crash mid-write), and when the
 * journal holds more than COMPACT_MIN_RECORDS records and more than COMPACT_RATIO times the live
 * messages: the live messages are written to a temp file, synced, and renamed over the journal.
 */
import { closeSync, fdatasyncSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** A message as the journal keeps it (visibility is not kept: every message is visible on open). */
export interface JournaledMessage {
  messageId: string;
  body: string;
  sentAt: number;
  receiveCount: number;
  firstReceiveAt?: number;
}

export type JournalRecord =
  | { op: 'sent'; id: string; body: string; sentAt: number; n?: number; at?: number }
  | { op: 'received'; id: string; n: number; at: number }
  | { op: 'deleted'; id: string }
  | { op: 'dlq'; id: string }
  | { op: 'purged' };

export const COMPACT_MIN_RECORDS = 1_000;
export const COMPACT_RATIO = 4;

export interface OpenedJournal {
  journal: QueueJournal;
  /** Messages not deleted, in journal order. */
  messages: JournaledMessage[];
  /** Lines that could not be read, not counting a torn last line (expected after a crash). */
  unreadableLines: number;
}

const isRecord = (value: unknown): value is JournalRecord => {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  switch (record.op) {
    case 'sent':
      return typeof record.id === 'string' && typeof record.body === 'string' && typeof record.sentAt === 'number';
    case 'received':
      return typeof record.id === 'string' && typeof record.n === 'number' && typeof record.at === 'number';
    case 'deleted':
    case 'dlq':
      return typeof record.id === 'string';
    case 'purged':
      return true;
    default:
      return false;
  }
};

/** Replays journal text into the live messages (unreadable lines are skipped and counted). */
export function replayJournal(text: string): { messages: Map<string, JournaledMessage>; unreadableLines: number } {
  const messages = new Map<string, JournaledMessage>();
  const lines = text.split('\n');
  let unreadableLines = 0;
  lines.forEach((line, index) => {
    if (line === '') return;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      record = undefined;
    }
    if (!isRecord(record)) {
      // The last line without its newline is a write cut short by a crash: not an error.
      if (index !== lines.length - 1) unreadableLines += 1;
      return;
    }
    switch (record.op) {
      case 'sent':
        messages.set(record.id, { messageId: record.id, body: record.body, sentAt: record.sentAt, receiveCount: record.n ?? 0, ...(record.at !== undefined ? { firstReceiveAt: record.at } : {}) });
        break;
      case 'received': {
        const message = messages.get(record.id);
        if (message) {
          message.receiveCount = record.n;
          message.firstReceiveAt ??= record.at;
        }
        break;
      }
      case 'deleted':
      case 'dlq':
        messages.delete(record.id);
        break;
      case 'purged':
        messages.clear();
        break;
    }
  });
  return { messages, unreadableLines };
}

const line = (record: JournalRecord) => `${JSON.stringify(record)}\n`;

function writeAll(fd: number, text: string): void {
  const buffer = Buffer.from(text, 'utf8');
  let offset = 0;
  while (offset < buffer.length) offset += writeSync(fd, buffer, offset, buffer.length - offset);
}

export class QueueJournal {
  private fd: number | undefined;
  /** Records in the journal file (compaction threshold). */
  private records = 0;

  private constructor(readonly file: string) {}

  /** Reads (and compacts) `<dir>/<name>.jsonl`, creating the directory and file if missing. */
  static open(dir: string, name: string): OpenedJournal {
    mkdirSync(dir, { recursive: true });
    const journal = new QueueJournal(join(dir, `${name}.jsonl`));
    let text = '';
    try {
      text = readFileSync(journal.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    const { messages, unreadableLines } = replayJournal(text);
    const live = [...messages.values()];
    journal.compact(live);
    return { journal, messages: live, unreadableLines };
  }

  /** Appends records with one write; `sync` also flushes them to disk before returning. Ignored once closed. */
  append(records: readonly JournalRecord[], sync = false): void {
    if (this.fd === undefined || records.length === 0) return;
    writeAll(this.fd, records.map(line).join(''));
    if (sync) fdatasyncSync(this.fd);
    this.records += records.length;
  }

  /** Compacts when the journal has grown well past the live messages. */
  compactIfLarge(live: () => Iterable<JournaledMessage>, liveCount: number): void {
    if (this.fd === undefined || this.records <= COMPACT_MIN_RECORDS || this.records <= COMPACT_RATIO * liveCount) return;
    this.compact([...live()]);
  }

  close(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
  }

  /** Rewrites the journal as one `sent` record per live message: temp file, sync, rename, sync dir. */
  private compact(live: readonly JournaledMessage[]): void {
    const temporary = `${this.file}.tmp`;
    const fd = openSync(temporary, 'w');
    try {
      writeAll(
        fd,
        live
          .map((message) =>
            line({ op: 'sent', id: message.messageId, body: message.body, sentAt: message.sentAt, n: message.receiveCount, ...(message.firstReceiveAt !== undefined ? { at: message.firstReceiveAt } : {}) }),
          )
          .join(''),
      );
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    if (this.fd !== undefined) closeSync(this.fd);
    renameSync(temporary, this.file);
    syncDirectory(this.file);
    this.fd = openSync(this.file, 'a');
    this.records = live.length;
  }
}

/** Makes the rename durable where the platform allows syncing a directory (not on Windows). */
function syncDirectory(file: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dirname(file), 'r');
    fsyncSync(fd);
  } catch {
    // Best effort.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
