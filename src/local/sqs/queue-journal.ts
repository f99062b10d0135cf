/**
 * The durable store of one local SQS queue: an append-only journal of JSON lines,
 * `<dir>/<queue name>.jsonl`, so a restart of the local runtime loses no accepted message.
 *
 * Records: `sent` (id, body, sentAt; after a compaction also the receive count `n`, first receive
 * time `at` and last receive time `r`), `received` (id, n, at, r), `deleted` (id), `dlq` (id, moved
 * to the dead-letter queue, which journals its own `sent` first) and `purged`. Replaying them in
 * order gives the messages not yet deleted, with their receive counts.
 *
 * Durability promise: a send is acknowledged only after its sync. Every record is written with a
 * synchronous write(2) before the queue operation returns, so it survives the process ending at any
 * point (Ctrl+C, crash, kill -9). `sent` records are also fdatasync'd before the sender is answered,
 * so an accepted message survives a power loss too. The sync is a GROUP COMMIT (`appendDurable`):
 * the writes of every call that arrives while a sync runs wait for the next one, which starts as
 * soon as the running one ends, so one fdatasync (on libuv's thread pool, off the event loop) covers
 * the sends of many calls, and each call is answered only once a sync that started after its write
 * has completed. The rare synchronous path (`append(records, true)`: DLQ moves, scheduler
 * deliveries) syncs at once. `received` / `deleted` / `dlq` records are not synced (losing one means
 * a redelivery or a lower receive count: at-least-once, as on AWS).
 *
 * Compaction: on open (which also drops a torn last line left by a crash mid-write), and when the
 * journal holds more than COMPACT_MIN_RECORDS records and more than COMPACT_RATIO times the live
 * messages: the live messages are streamed to a temp file in chunks, synced, and renamed over the
 * journal. Reading is streamed too (fixed-size chunks, one line at a time), so a journal of
 * hundreds of thousands of messages never becomes one giant string.
 */
import { closeSync, fdatasync, fdatasyncSync, fsyncSync, mkdirSync, openSync, readSync, renameSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** A message as the journal keeps it (visibility is not kept: it is derived on open). */
export interface JournaledMessage {
  messageId: string;
  body: string;
  sentAt: number;
  receiveCount: number;
  firstReceiveAt?: number;
  /** When it was last received (a restart holds a message received by a killed run until that run's timeout). */
  lastReceiveAt?: number;
  /** SendMessage's DelaySeconds: invisible until then (a restart keeps the delay). */
  delayedUntil?: number;
}

export type JournalRecord =
  | { op: 'sent'; id: string; body: string; sentAt: number; n?: number; at?: number; r?: number; d?: number }
  | { op: 'received'; id: string; n: number; at: number; r?: number }
  | { op: 'deleted'; id: string }
  | { op: 'dlq'; id: string }
  | { op: 'purged' };

export const COMPACT_MIN_RECORDS = 1_000;
export const COMPACT_RATIO = 4;
const READ_CHUNK_BYTES = 1024 * 1024;
/** Compaction writes at most about this many bytes per write(2). */
const WRITE_CHUNK_BYTES = 1024 * 1024;
const NEWLINE = 0x0a;

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

/** Applies journal lines in order; `finish` says whether the last line given was complete. */
class JournalReplay {
  readonly messages = new Map<string, JournaledMessage>();
  unreadableLines = 0;

  /** `last`: a line with no newline after it (a write cut short by a crash is not an error). */
  apply(line: string, last: boolean): void {
    if (line === '') return;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      record = undefined;
    }
    if (!isRecord(record)) {
      if (!last) this.unreadableLines += 1;
      return;
    }
    switch (record.op) {
      case 'sent':
        this.messages.set(record.id, {
          messageId: record.id,
          body: record.body,
          sentAt: record.sentAt,
          receiveCount: record.n ?? 0,
          ...(record.at !== undefined ? { firstReceiveAt: record.at } : {}),
          ...(record.r !== undefined ? { lastReceiveAt: record.r } : {}),
          ...(typeof record.d === 'number' ? { delayedUntil: record.d } : {}),
        });
        break;
      case 'received': {
        const message = this.messages.get(record.id);
        if (message) {
          message.receiveCount = record.n;
          message.firstReceiveAt ??= record.at;
          message.lastReceiveAt = record.r ?? record.at;
        }
        break;
      }
      case 'deleted':
      case 'dlq':
        this.messages.delete(record.id);
        break;
      case 'purged':
        this.messages.clear();
        break;
    }
  }
}

/** Replays journal text into the live messages (unreadable lines are skipped and counted). */
export function replayJournal(text: string): { messages: Map<string, JournaledMessage>; unreadableLines: number } {
  const replay = new JournalReplay();
  const lines = text.split('\n');
  lines.forEach((line, index) => replay.apply(line, index === lines.length - 1));
  return { messages: replay.messages, unreadableLines: replay.unreadableLines };
}

/** Streams a journal file line by line in fixed-size chunks (lines are split on bytes, so UTF-8 is never cut). */
function replayFile(file: string): JournalReplay {
  const replay = new JournalReplay();
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return replay;
    throw error;
  }
  try {
    const chunk = Buffer.allocUnsafe(READ_CHUNK_BYTES);
    let carry: Buffer = Buffer.alloc(0);
    for (;;) {
      const read = readSync(fd, chunk, 0, chunk.length, null);
      if (read === 0) break;
      const data = carry.length > 0 ? Buffer.concat([carry, chunk.subarray(0, read)]) : chunk.subarray(0, read);
      let start = 0;
      for (let newline = data.indexOf(NEWLINE, start); newline !== -1; newline = data.indexOf(NEWLINE, start)) {
        replay.apply(data.toString('utf8', start, newline), false);
        start = newline + 1;
      }
      // Copied: `chunk` is reused by the next read.
      carry = Buffer.from(data.subarray(start));
    }
    if (carry.length > 0) replay.apply(carry.toString('utf8'), true);
  } finally {
    closeSync(fd);
  }
  return replay;
}

const line = (record: JournalRecord) => `${JSON.stringify(record)}\n`;

const sentRecordOf = (message: JournaledMessage): JournalRecord => ({
  op: 'sent',
  id: message.messageId,
  body: message.body,
  sentAt: message.sentAt,
  n: message.receiveCount,
  ...(message.firstReceiveAt !== undefined ? { at: message.firstReceiveAt } : {}),
  ...(message.lastReceiveAt !== undefined ? { r: message.lastReceiveAt } : {}),
  ...(message.delayedUntil !== undefined ? { d: message.delayedUntil } : {}),
});

function writeAll(fd: number, text: string): void {
  const buffer = Buffer.from(text, 'utf8');
  let offset = 0;
  while (offset < buffer.length) offset += writeSync(fd, buffer, offset, buffer.length - offset);
}

interface SyncWaiter {
  resolve(): void;
  reject(error: Error): void;
}

export class QueueJournal {
  private fd: number | undefined;
  /** Records in the journal file (compaction threshold). */
  private records = 0;
  /** fdatasync calls made (tests and benchmarks check the batching). */
  syncCount = 0;
  /** Durable appends written since the running sync started: the next sync covers them. */
  private waiting: SyncWaiter[] = [];
  /** The fd an asynchronous fdatasync is running on (at most one at a time). */
  private syncingFd: number | undefined;
  /** An fd replaced (compaction) or closed while its sync ran: closed when that sync ends. */
  private closeWhenSynced = false;

  private constructor(readonly file: string) {}

  /** Reads (streamed) and compacts `<dir>/<name>.jsonl`, creating the directory and file if missing. */
  static open(dir: string, name: string): OpenedJournal {
    mkdirSync(dir, { recursive: true });
    const journal = new QueueJournal(join(dir, `${name}.jsonl`));
    const { messages, unreadableLines } = replayFile(journal.file);
    journal.compact(messages.values(), messages.size);
    return { journal, messages: Array.from(messages.values()), unreadableLines };
  }

  /** Appends records with one write; `sync` also flushes them to disk (one fdatasync) before returning. Ignored once closed. */
  append(records: readonly JournalRecord[], sync = false): void {
    if (this.fd === undefined || records.length === 0) return;
    let text = '';
    for (const record of records) text += line(record);
    writeAll(this.fd, text);
    if (sync) {
      fdatasyncSync(this.fd);
      this.syncCount += 1;
      // This sync also covers every durable append written before it.
      this.settle(this.waiting.splice(0));
    }
    this.records += records.length;
  }

  /**
   * Appends records with one write(2) now, and resolves once an fdatasync that started after the
   * write has completed (group commit: one sync for the appends of every call made meanwhile).
   * Rejects if that sync fails. Resolves at once when closed (nothing written, as `append`).
   */
  appendDurable(records: readonly JournalRecord[]): Promise<void> {
    if (this.fd === undefined || records.length === 0) return Promise.resolve();
    this.append(records);
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.startSync();
    });
  }

  /** Starts a sync for the waiting appends unless one is running (its end starts the next). */
  private startSync(): void {
    if (this.syncingFd !== undefined || this.fd === undefined || this.waiting.length === 0) return;
    const fd = this.fd;
    const group = this.waiting.splice(0);
    this.syncingFd = fd;
    fdatasync(fd, (error) => {
      this.syncingFd = undefined;
      this.syncCount += 1;
      if (this.closeWhenSynced) {
        this.closeWhenSynced = false;
        closeSync(fd);
      }
      this.settle(group, error ?? undefined);
      this.startSync();
    });
  }

  private settle(group: readonly SyncWaiter[], error?: Error): void {
    for (const waiter of group) {
      if (error) waiter.reject(error);
      else waiter.resolve();
    }
  }

  /** Closes `fd` now, or when the sync running on it ends (closing it under a running fdatasync could sync a reused fd). */
  private retire(fd: number): void {
    if (this.syncingFd === fd) this.closeWhenSynced = true;
    else closeSync(fd);
  }

  /** Compacts when the journal has grown well past the live messages. */
  compactIfLarge(live: () => Iterable<JournaledMessage>, liveCount: number): void {
    if (this.fd === undefined || this.records <= COMPACT_MIN_RECORDS || this.records <= COMPACT_RATIO * liveCount) return;
    this.compact(live(), liveCount);
  }

  /** Syncs what waits for a sync (its callers are answered), then closes the journal. */
  close(): void {
    if (this.fd === undefined) return;
    if (this.waiting.length > 0) {
      fdatasyncSync(this.fd);
      this.syncCount += 1;
      this.settle(this.waiting.splice(0));
    }
    this.retire(this.fd);
    this.fd = undefined;
  }

  /** Rewrites the journal as one `sent` record per live message, streamed in chunks: temp file, sync, rename, sync dir. */
  private compact(live: Iterable<JournaledMessage>, liveCount: number): void {
    const temporary = `${this.file}.tmp`;
    const fd = openSync(temporary, 'w');
    try {
      let pending = '';
      for (const message of live) {
        pending += line(sentRecordOf(message));
        if (pending.length >= WRITE_CHUNK_BYTES) {
          writeAll(fd, pending);
          pending = '';
        }
      }
      writeAll(fd, pending);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    if (this.fd !== undefined) this.retire(this.fd);
    renameSync(temporary, this.file);
    syncDirectory(this.file);
    this.fd = openSync(this.file, 'a');
    this.records = liveCount;
    // The new file holds every live message and is synced: the appends waiting for a sync are durable.
    this.settle(this.waiting.splice(0));
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
