/**
 * Local EventBridge: `POST /` with `X-Amz-Target: AWSEvents.PutEvents` (AWS JSON 1.1), as the real
 * `@aws-sdk/client-eventbridge` sends it. Open to local producers on loopback with any credentials
 * (as LocalStack's). Routing evaluates the stack's rules (bus-rules.ts: the privacy job's, and each
 * catalog type's intake lanes, an urgent lane matching on `detail.priority`), and the queue body is
 * the EventBridge event, as a rule target delivers it.
 *
 * Answers like AWS, per entry: every entry is checked first (event-entry.ts), the good ones are
 * queued (one journal write per intake queue per call, answered after the journal's group commit) and the bad ones fail individually
 * with ErrorCode/ErrorMessage and FailedEntryCount; a bad entry never fails its neighbours and
 * nothing answers 500. An entry without EventBusName (or naming `default`) goes to the default bus,
 * which has no rules: accepted, not delivered (a WARN says so); an unknown bus name is a
 * per-entry ResourceNotFoundException.
 *
 * Back-pressure: the runtime accepts events far faster than one process fans them out, so an entry
 * its intake queue (the lane its rule routes it to: an urgent event is throttled only by its urgent
 * lane's backlog) has no room for (intake-throttle.ts: about `intakeBacklogSeconds` of the measured
 * drain rate, never more than `intakeBacklogLimit` messages) fails with a per-entry
 * `ThrottlingException` (retriable: send the failed entries again with backoff, as for AWS's own
 * per-entry failures) instead of growing a backlog of minutes. A throttled entry is not validated
 * (as AWS throttles before it reads an entry): a producer's retries against a full queue stay cheap
 * (a type with two lanes parses the entry's Detail to pick its lane, nothing more).
 *
 * Unlike AWS, entries for the notifications bus are validated up front (envelope and the type's
 * data schema): a bad entry is answered with the field named and nothing of it is queued, so a
 * producer sees its mistake at once. On AWS the same check runs in the fan-out function and the
 * DLQ gets it.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import type { ValidateEventInput } from '../../core/fanout/events.js';
import type { LocalRequest, LocalResponse, LocalRoute } from '../http/router.js';
import { LOCAL_ACCOUNT_ID, QueueClosedError, type LocalQueue } from '../sqs/index.js';
import type { LocalBusRules } from './bus-rules.js';
import { busOf, checkEntry, type EntryError } from './event-entry.js';
import { IntakeThrottle, type IntakeRoom } from './intake-throttle.js';
import { LOCAL_ARCHIVE_NAME, ReplayExistsError, type ArchivedEvent, type LocalEventArchive, type LocalReplay } from './archive.js';

const EVENTS_JSON = { 'content-type': 'application/x-amz-json-1.1' };
const SUPPORTED_OPERATIONS = new Set(['AWSEvents.PutEvents', 'AWSEvents.StartReplay', 'AWSEvents.DescribeReplay', 'AWSEvents.DescribeArchive']);
const REPLAY_NAME = /^[.\-_A-Za-z0-9]{1,64}$/;
const MAX_ENTRIES = 10;

export interface LocalEventBusOptions {
  busName: string;
  region: string;
  findType: ValidateEventInput['findType'];
  /** The bus's rules: the queues an event goes to. */
  rules: LocalBusRules;
  /** Messages an intake queue may hold before its entries are throttled (0 = no limit). */
  intakeBacklogLimit?: number;
  /** Backlog an intake queue may hold in seconds of its consumer's measured drain rate, and age of its oldest waiting message (0 = only the limit). */
  intakeBacklogSeconds?: number;
  /** WARNs (events accepted on the default bus, which delivers nothing) and unexpected errors. */
  logger?: Pick<Logger, 'warn' | 'error'>;
  /** The bus's archive: every event accepted for the notifications bus; StartReplay / DescribeReplay / DescribeArchive read it. */
  archive?: LocalEventArchive;
}

type EntryResult = { EventId: string } | EntryError;

function eventsError(type: string, message: string): LocalResponse {
  return { status: 400, headers: EVENTS_JSON, body: JSON.stringify({ __type: type, message }) };
}

function entryDetailType(body: string): string {
  return String((JSON.parse(body) as Record<string, unknown>)['detail-type']);
}

/** The event a rule sees of a PutEvents entry not validated yet (a Detail that is not JSON matches as no detail: validation refuses it next). */
function unvalidatedEvent(entry: { DetailType: string; Source?: unknown; Detail?: unknown }): Record<string, unknown> {
  let detail: unknown;
  try {
    detail = typeof entry.Detail === 'string' ? JSON.parse(entry.Detail) : undefined;
  } catch {
    detail = undefined;
  }
  return { 'detail-type': entry.DetailType, source: entry.Source, detail };
}

function answer(body: unknown): LocalResponse {
  return { status: 200, headers: EVENTS_JSON, body: JSON.stringify(body) };
}

function archiveArn(options: LocalEventBusOptions): string {
  return `arn:aws:events:${options.region}:${LOCAL_ACCOUNT_ID}:archive/${LOCAL_ARCHIVE_NAME}`;
}

function replayAnswer(replay: LocalReplay, options: LocalEventBusOptions): Record<string, unknown> {
  return {
    ReplayName: replay.name,
    ReplayArn: `arn:aws:events:${options.region}:${LOCAL_ACCOUNT_ID}:replay/${replay.name}`,
    State: replay.state,
    StateReason: replay.stateReason,
    EventSourceArn: archiveArn(options),
    Destination: { Arn: `arn:aws:events:${options.region}:${LOCAL_ACCOUNT_ID}:event-bus/${options.busName}` },
    EventStartTime: replay.fromMs / 1000,
    EventEndTime: replay.toMs / 1000,
    EventLastReplayedTime: replay.endedAtMs / 1000,
    ReplayStartTime: replay.startedAtMs / 1000,
    ReplayEndTime: replay.endedAtMs / 1000,
  };
}

/** StartReplay, DescribeReplay and DescribeArchive on the local archive (the shapes of the AWS API). */
function archiveOperation(target: string, input: unknown, options: LocalEventBusOptions): LocalResponse {
  const archive = options.archive;
  if (!archive) return eventsError('ResourceNotFoundException', 'the local bus keeps no archive');
  const fields = (typeof input === 'object' && input !== null ? input : {}) as Record<string, unknown>;
  if (target === 'AWSEvents.DescribeArchive') {
    if (fields.ArchiveName !== LOCAL_ARCHIVE_NAME) return eventsError('ResourceNotFoundException', `Archive ${String(fields.ArchiveName)} does not exist.`);
    return answer({ ArchiveArn: archiveArn(options), ArchiveName: LOCAL_ARCHIVE_NAME, EventSourceArn: `arn:aws:events:${options.region}:${LOCAL_ACCOUNT_ID}:event-bus/${options.busName}`, State: 'ENABLED', RetentionDays: 0, EventCount: archive.size });
  }
  const name = fields.ReplayName;
  if (typeof name !== 'string' || !REPLAY_NAME.test(name)) return eventsError('ValidationException', 'ReplayName: must be 1 to 64 characters of [.-_A-Za-z0-9]');
  if (target === 'AWSEvents.DescribeReplay') {
    const replay = archive.describeReplay(name);
    return replay ? answer(replayAnswer(replay, options)) : eventsError('ResourceNotFoundException', `Replay ${name} does not exist.`);
  }
  if (fields.EventSourceArn !== archiveArn(options)) return eventsError('ResourceNotFoundException', `Archive ${String(fields.EventSourceArn)} does not exist (the local archive is ${archiveArn(options)}).`);
  const { EventStartTime: from, EventEndTime: to } = fields;
  if (typeof from !== 'number' || typeof to !== 'number' || !Number.isFinite(from) || !Number.isFinite(to) || from >= to) {
    return eventsError('ValidationException', 'EventStartTime and EventEndTime: must be times with start before end');
  }
  try {
    const replay = archive.startReplay(name, from * 1000, to * 1000, (marked) => {
      const byQueue = new Map<LocalQueue, string[]>();
      for (const { event, body } of marked) {
        for (const queue of options.rules.targetsOf(event.detailType, () => JSON.parse(body))) {
          const bodies = byQueue.get(queue) ?? [];
          bodies.push(body);
          byQueue.set(queue, bodies);
        }
      }
      for (const [queue, bodies] of byQueue) queue.sendBatch(bodies);
    });
    if (replay.state === 'FAILED') options.logger?.warn('local replay failed part way; the events before the failure were replayed', { replay: name, reason: replay.stateReason });
    return answer({ ReplayArn: replayAnswer(replay, options).ReplayArn, State: 'STARTING', ReplayStartTime: replay.startedAtMs / 1000 });
  } catch (error) {
    if (error instanceof ReplayExistsError) return eventsError('ResourceAlreadyExistsException', error.message);
    throw error;
  }
}

export function createEventBusRoute(options: LocalEventBusOptions): LocalRoute {
  const throttle = new IntakeThrottle({ maxBacklogSeconds: options.intakeBacklogSeconds ?? 0, maxMessages: options.intakeBacklogLimit ?? 0 });
  const throttling = (options.intakeBacklogSeconds ?? 0) > 0 || (options.intakeBacklogLimit ?? 0) > 0;
  const putEvents = async (entries: readonly unknown[]): Promise<{ FailedEntryCount: number; Entries: EntryResult[] }> => {
    const results: EntryResult[] = new Array<EntryResult>(entries.length);
    const byQueue = new Map<LocalQueue, Array<{ index: number; id: string; body: string }>>();
    // Each queue's room is read once per call; the call's own entries use it up.
    const rooms = new Map<LocalQueue, IntakeRoom>();
    const archived: ArchivedEvent[] = [];
    const archivedIndexes = new Set<number>();
    const archivedAtMs = Date.now();
    /** The throttle's answer for an entry bound to `queue`, or undefined when it has room (the call's own entries use the room up). */
    const throttled = (queue: LocalQueue, detailType: string): EntryError | undefined => {
      const room = rooms.get(queue) ?? throttle.room(queue);
      rooms.set(queue, room);
      if ((byQueue.get(queue)?.length ?? 0) < room.room) return undefined;
      return { ErrorCode: 'ThrottlingException', ErrorMessage: `${detailType}: ${room.reason}; retry this entry with backoff` };
    };
    entries.forEach((entry, index) => {
      // Throttled before it is validated (as AWS throttles before it looks at an entry): a producer's retries of a full queue cost no validation.
      if (throttling && typeof entry === 'object' && entry !== null) {
        const { DetailType, EventBusName, Source, Detail } = entry as { DetailType?: unknown; EventBusName?: unknown; Source?: unknown; Detail?: unknown };
        const queues = typeof DetailType === 'string' && busOf(EventBusName, options.busName) === 'notifications' ? options.rules.targetsOf(DetailType, () => unvalidatedEvent({ DetailType, Source, Detail })) : [];
        const early = queues.map((queue) => throttled(queue, DetailType as string)).find((refusal) => refusal !== undefined);
        if (early) {
          results[index] = early;
          return;
        }
      }
      let checked: ReturnType<typeof checkEntry>;
      try {
        checked = checkEntry(entry, options);
      } catch (error) {
        options.logger?.error('local PutEvents entry failed unexpectedly', { error: error as Error });
        checked = { ErrorCode: 'InternalFailure', ErrorMessage: 'the entry could not be processed' };
      }
      if ('ErrorCode' in checked) {
        results[index] = checked;
        return;
      }
      results[index] = { EventId: checked.id };
      if (checked.bus === 'default') {
        options.logger?.warn('PutEvents entry accepted on the default event bus, which has no rules: it is not delivered (name the notifications bus in EventBusName)', { eventId: checked.id, detailType: checked.detailType, notificationsBus: options.busName });
        return;
      }
      // No rule matches: EventBridge accepts the event and drops it (validation already refused unknown types).
      const queues = options.rules.targetsOf(checked.detailType, () => checked.event);
      if (queues.length === 0) {
        archived.push({ id: checked.id, detailType: checked.detailType, archivedAtMs, body: checked.body });
        return;
      }
      const refused = throttling ? queues.map((queue) => throttled(queue, checked.detailType)).find((refusal) => refusal !== undefined) : undefined;
      if (refused) {
        results[index] = refused;
        return;
      }
      for (const queue of queues) {
        const group = byQueue.get(queue) ?? [];
        group.push({ index, id: checked.id, body: checked.body });
        byQueue.set(queue, group);
      }
    });
    // One journal write per intake queue, answered once its group commit has synced (the queues in parallel).
    await Promise.all(
      Array.from(byQueue, async ([queue, group]) => {
        try {
          await queue.sendBatchDurable(group.map((item) => item.body));
          // Once per event, however many rules it matched.
          for (const item of group) {
            if (archivedIndexes.has(item.index)) continue;
            archivedIndexes.add(item.index);
            archived.push({ id: item.id, detailType: entryDetailType(item.body), archivedAtMs, body: item.body });
          }
        } catch (error) {
          const failure: EntryError =
            error instanceof QueueClosedError ? { ErrorCode: 'InternalException', ErrorMessage: 'the local runtime is stopping; retry' } : { ErrorCode: 'InternalFailure', ErrorMessage: 'the event could not be queued; retry' };
          if (!(error instanceof QueueClosedError)) options.logger?.error('local PutEvents could not queue entries', { error: error as Error });
          for (const item of group) results[item.index] = failure;
        }
      }),
    );
    try {
      options.archive?.append(archived);
    } catch (error) {
      // The events are queued: a failed archive write loses replayability, never the events.
      options.logger?.error('local archive append failed; these events cannot be replayed', { error: error as Error, count: archived.length });
    }
    return { FailedEntryCount: results.filter((result) => 'ErrorCode' in result).length, Entries: results };
  };

  return {
    async handle(request: LocalRequest) {
      const target = request.headers['x-amz-target'];
      if (request.method !== 'POST' || typeof target !== 'string' || !target.startsWith('AWSEvents.')) return undefined;
      if (!SUPPORTED_OPERATIONS.has(target)) return eventsError('UnknownOperationException', `${target} is not supported by the local runtime`);
      let input: unknown;
      try {
        input = JSON.parse(request.body.toString('utf8') || '{}');
      } catch {
        return eventsError('ValidationException', 'request body is not JSON');
      }
      if (target !== 'AWSEvents.PutEvents') return archiveOperation(target, input, options);
      if (typeof input !== 'object' || input === null || !('Entries' in input) || !Array.isArray(input.Entries) || input.Entries.length === 0 || input.Entries.length > MAX_ENTRIES) {
        return eventsError('ValidationException', `Entries: must hold 1 to ${MAX_ENTRIES} entries`);
      }
      return { status: 200, headers: EVENTS_JSON, body: JSON.stringify(await putEvents(input.Entries)) };
    },
  };
}
