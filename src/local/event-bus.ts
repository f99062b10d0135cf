/**
 * Local EventBridge: `POST /` with `X-Amz-Target: AWSEvents.PutEvents` (AWS JSON 1.1), as the real
 * `@aws-sdk/client-eventbridge` sends it. Routing is the catalog's rules (detail-type -> that
 * type's intake queue), and the queue body is the EventBridge event, as a rule target delivers it.
 *
 * Unlike AWS, entries are validated up front (envelope and the type's data schema): a bad entry is
 * answered with ErrorCode/ErrorMessage naming the field and nothing of it is queued, so a producer
 * sees its mistake at once. On AWS the same check runs in the fan-out function and the DLQ gets it.
 */
import { randomUUID } from 'node:crypto';
import { EventValidationError, validateEvent } from '../core/events.js';
import type { NotificationType } from '../notifications/notification-type.js';
import type { LocalRequest, LocalResponse, LocalRoute } from './http-router.js';
import { LOCAL_ACCOUNT_ID, QueueClosedError, type LocalQueue } from './sqs-queues.js';

const EVENTS_JSON = { 'content-type': 'application/x-amz-json-1.1' };
const MAX_ENTRIES = 10;
/** PutEvents entry size limit. */
const MAX_ENTRY_BYTES = 1024 * 1024;

export interface LocalEventBusOptions {
  busName: string;
  region: string;
  findType(detailType: string): NotificationType<any> | undefined;
  /** The rule target of each detail-type. */
  intakeQueueOf(detailType: string): LocalQueue | undefined;
}

interface PutEventsEntry {
  Source?: unknown;
  DetailType?: unknown;
  Detail?: unknown;
  EventBusName?: unknown;
  Time?: unknown;
  Resources?: unknown;
}

type EntryResult = { EventId: string } | { ErrorCode: string; ErrorMessage: string };

function eventsError(type: string, message: string): LocalResponse {
  return { status: 400, headers: EVENTS_JSON, body: JSON.stringify({ __type: type, message }) };
}

/** Entry `Time` arrives as epoch seconds (the SDK's JSON serialization) or an ISO string. */
function eventTime(time: unknown): string {
  const ms = typeof time === 'number' ? time * 1000 : typeof time === 'string' ? Date.parse(time) : Number.NaN;
  // EventBridge event times have second precision.
  return new Date(Number.isFinite(ms) ? ms : Date.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function createEventBusRoute(options: LocalEventBusOptions): LocalRoute {
  const knownBus = (name: unknown) =>
    name === undefined || name === options.busName || (typeof name === 'string' && name.endsWith(`:event-bus/${options.busName}`));

  const putEntry = (entry: PutEventsEntry | null): EntryResult => {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return { ErrorCode: 'InvalidArgument', ErrorMessage: 'Entries: each entry must be an object' };
    if (!knownBus(entry.EventBusName)) return { ErrorCode: 'InvalidArgument', ErrorMessage: `EventBusName: no event bus named ${String(entry.EventBusName)}` };
    if (typeof entry.Source !== 'string' || entry.Source === '') return { ErrorCode: 'InvalidArgument', ErrorMessage: 'Source: is required' };
    if (typeof entry.DetailType !== 'string' || entry.DetailType === '') return { ErrorCode: 'InvalidArgument', ErrorMessage: 'DetailType: is required' };
    if (typeof entry.Detail !== 'string') return { ErrorCode: 'InvalidArgument', ErrorMessage: 'Detail: is required (a JSON object as a string)' };
    if (Buffer.byteLength(entry.Detail) > MAX_ENTRY_BYTES) return { ErrorCode: 'InvalidArgument', ErrorMessage: 'Detail: entry exceeds 1 MB' };
    let detail: unknown;
    try {
      detail = JSON.parse(entry.Detail);
    } catch {
      return { ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail: is not valid JSON' };
    }
    const time = eventTime(entry.Time);
    try {
      validateEvent({ detailType: entry.DetailType, detail, fallbackTime: time, findType: options.findType });
    } catch (error) {
      if (error instanceof EventValidationError) return { ErrorCode: 'InvalidArgument', ErrorMessage: error.message };
      throw error;
    }
    const queue = options.intakeQueueOf(entry.DetailType);
    const id = randomUUID();
    // No matching rule: EventBridge accepts the event and drops it; validation above already refused unknown types.
    // The intake queue journals the event before it is answered; a runtime shutting down refuses it (retryable).
    const body = JSON.stringify({
        version: '0',
        id,
        'detail-type': entry.DetailType,
        source: entry.Source,
        account: LOCAL_ACCOUNT_ID,
        time,
        region: options.region,
        resources: Array.isArray(entry.Resources) ? entry.Resources : [],
        detail,
      });
    try {
      queue?.send(body);
    } catch (error) {
      if (error instanceof QueueClosedError) return { ErrorCode: 'InternalException', ErrorMessage: 'the local runtime is stopping; retry' };
      throw error;
    }
    return { EventId: id };
  };

  return {
    async handle(request: LocalRequest) {
      const target = request.headers['x-amz-target'];
      if (request.method !== 'POST' || typeof target !== 'string' || !target.startsWith('AWSEvents.')) return undefined;
      if (target !== 'AWSEvents.PutEvents') return eventsError('UnsupportedOperation', `${target} is not supported by the local runtime`);
      let input: unknown;
      try {
        input = JSON.parse(request.body.toString('utf8') || '{}');
      } catch {
        return eventsError('ValidationException', 'request body is not JSON');
      }
      if (typeof input !== 'object' || input === null || !('Entries' in input) || !Array.isArray(input.Entries) || input.Entries.length === 0 || input.Entries.length > MAX_ENTRIES) {
        return eventsError('ValidationException', `Entries: must hold 1 to ${MAX_ENTRIES} entries`);
      }
      const entries = (input.Entries as Array<PutEventsEntry | null>).map(putEntry);
      const failed = entries.filter((entry) => 'ErrorCode' in entry).length;
      return { status: 200, headers: EVENTS_JSON, body: JSON.stringify({ FailedEntryCount: failed, Entries: entries }) };
    },
  };
}
