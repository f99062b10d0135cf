/**
 * The local bus's archive (EventBridge Archive stand-in): every event accepted for the notifications
 * bus is appended to `DATA_DIR/eventbridge/archive.jsonl`, and `StartReplay` / `DescribeReplay`
 * (AWS JSON 1.1, as `@aws-sdk/client-eventbridge` sends them) put the events of a time range back
 * on their intake queues, marked with `replay-name` like AWS does. Replays are idempotent downstream:
 * the fan-out keys on the producer's event id (idempotency record, arrival stamp, deterministic
 * notification ids). Unlike AWS the local archive keeps events until DATA_DIR is deleted.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const LOCAL_ARCHIVE_NAME = 'notifications-archive';
const ARCHIVE_FILE = 'archive.jsonl';

export interface ArchivedEvent {
  id: string;
  detailType: string;
  /** When the bus accepted it (epoch ms): the time ranges of a replay select on it. */
  archivedAtMs: number;
  /** The EventBridge event, as its rule target receives it. */
  body: string;
}

export interface LocalReplay {
  name: string;
  state: 'COMPLETED' | 'FAILED';
  stateReason: string;
  fromMs: number;
  toMs: number;
  startedAtMs: number;
  endedAtMs: number;
  replayed: number;
}

export class LocalEventArchive {
  private readonly file: string;
  private readonly replays = new Map<string, LocalReplay>();

  constructor(dir: string) {
    mkdirSync(dir, { recursive: true });
    this.file = join(dir, ARCHIVE_FILE);
  }

  /** The archive file of a DATA_DIR (the replay command's dry run reads it). */
  static fileOf(dataDir: string): string {
    return join(dataDir, 'eventbridge', ARCHIVE_FILE);
  }

  /** One append per PutEvents call (its accepted entries). */
  append(events: readonly ArchivedEvent[]): void {
    if (events.length === 0) return;
    appendFileSync(this.file, events.map((event) => `${JSON.stringify(event)}\n`).join(''), { mode: 0o600 });
  }

  /** Archived events with `fromMs <= archivedAtMs < toMs`, in archive order. */
  read(fromMs: number, toMs: number): ArchivedEvent[] {
    return readArchiveFile(this.file).filter((event) => event.archivedAtMs >= fromMs && event.archivedAtMs < toMs);
  }

  get size(): number {
    return readArchiveFile(this.file).length;
  }

  /**
   * Replays the range now (synchronously, so DescribeReplay answers COMPLETED at once): the events, each
   * body marked with `replay-name`, go to `send` in one call (one journal write per queue, not one per
   * event). An event that cannot be marked ends the replay FAILED after the ones before it. A replay
   * name is used once, as on AWS.
   */
  startReplay(name: string, fromMs: number, toMs: number, send: (marked: ReadonlyArray<{ event: ArchivedEvent; body: string }>) => void): LocalReplay {
    if (this.replays.has(name)) throw new ReplayExistsError(name);
    const startedAtMs = Date.now();
    const marked: Array<{ event: ArchivedEvent; body: string }> = [];
    let failure: string | undefined;
    for (const event of this.read(fromMs, toMs)) {
      try {
        marked.push({ event, body: JSON.stringify({ ...(JSON.parse(event.body) as Record<string, unknown>), 'replay-name': name }) });
      } catch (error) {
        failure = `event ${event.id}: ${(error as Error).message}`;
        break;
      }
    }
    let replayed = marked.length;
    try {
      send(marked);
    } catch (error) {
      // A queue before the failing one may hold its events: replays are idempotent downstream, run it again.
      failure = `sending ${marked.length} events: ${(error as Error).message}`;
      replayed = 0;
    }
    const replay: LocalReplay = {
      name,
      state: failure ? 'FAILED' : 'COMPLETED',
      stateReason: failure ?? `replayed ${replayed} events`,
      fromMs,
      toMs,
      startedAtMs,
      endedAtMs: Date.now(),
      replayed,
    };
    this.replays.set(name, replay);
    return replay;
  }

  describeReplay(name: string): LocalReplay | undefined {
    return this.replays.get(name);
  }
}

export class ReplayExistsError extends Error {
  override readonly name = 'ReplayExistsError';
  constructor(readonly replayName: string) {
    super(`Replay ${replayName} already exists.`);
  }
}

/** Every well-formed line of an archive file (a torn last line from a crash is skipped). */
export function readArchiveFile(file: string): ArchivedEvent[] {
  if (!existsSync(file)) return [];
  const events: ArchivedEvent[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      events.push(JSON.parse(line) as ArchivedEvent);
    } catch {
      // A line cut short by a crash mid-append.
    }
  }
  return events;
}
