/**
 * One PutEvents entry, checked before anything is queued: bus name, required fields, size, Time,
 * and a Detail that is a JSON object (not a JSON string inside the string), not nested deeper than
 * MAX_DETAIL_DEPTH and free of prototype-pollution keys; then the catalog's envelope and data
 * validation. Every refusal is an entry error, never an exception.
 */
import { randomUUID } from 'node:crypto';
import { EventValidationError, validateEvent, type ValidateEventInput } from '../../core/fanout/events.js';
import { LOCAL_ACCOUNT_ID } from '../sqs/index.js';
import { PRIVACY_REQUEST_DETAIL_TYPES, privacyRequestDetailSchema } from '../../core/privacy/privacy-jobs.js';

/** PutEvents entry size limit. */
const MAX_ENTRY_BYTES = 1024 * 1024;
/** Deeper Detail is refused: no notification needs it, and it keeps recursive code (validation, serialisation) safe. */
export const MAX_DETAIL_DEPTH = 64;
/** Keys that would reach an object's prototype in code that merges Detail into objects. */
const POLLUTION_KEYS = new Set(['__proto__']);

export interface PutEventsEntry {
  Source?: unknown;
  DetailType?: unknown;
  Detail?: unknown;
  EventBusName?: unknown;
  Time?: unknown;
  Resources?: unknown;
}

export interface EntryError {
  ErrorCode: string;
  ErrorMessage: string;
}

export interface AcceptedEntry {
  id: string;
  /** `default`: accepted on the default bus, which has no rules. */
  bus: 'notifications' | 'default';
  detailType: string;
  /** The EventBridge event as a rule target receives it. */
  body: string;
  /** The same event, parsed (what the bus's rules match). */
  event: Record<string, unknown>;
}

export interface EntryContext {
  busName: string;
  region: string;
  findType: ValidateEventInput['findType'];
}

const invalid = (message: string): EntryError => ({ ErrorCode: 'InvalidArgument', ErrorMessage: message });

/** Which bus an EventBusName (name or ARN) means, or undefined for a bus that does not exist locally. */
export function busOf(name: unknown, busName: string): AcceptedEntry['bus'] | undefined {
  if (name === undefined || name === null || name === '') return 'default';
  if (typeof name !== 'string') return undefined;
  const shortName = name.startsWith('arn:') ? name.slice(name.lastIndexOf(':event-bus/') + ':event-bus/'.length) : name;
  if (name.startsWith('arn:') && !name.includes(':event-bus/')) return undefined;
  if (shortName === busName) return 'notifications';
  if (shortName === 'default') return 'default';
  return undefined;
}

/** Entry `Time` arrives as epoch seconds (the SDK's JSON serialization) or an ISO string; absent means now. */
function eventTime(time: unknown): string | EntryError {
  if (time === undefined || time === null) return secondPrecision(Date.now());
  const ms = typeof time === 'number' ? time * 1000 : typeof time === 'string' ? Date.parse(time) : Number.NaN;
  // Date's own range (±8.64e15 ms); beyond it there is no ISO time to give the event.
  if (!Number.isFinite(ms) || Math.abs(ms) > 8.64e15) return invalid('Time: is not a valid timestamp');
  return secondPrecision(ms);
}

/** EventBridge event times have second precision. */
const secondPrecision = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** Depth and forbidden keys of parsed JSON, walked without recursion (the value may be deeply nested). */
function detailProblem(detail: unknown): string | undefined {
  const stack: Array<{ value: unknown; depth: number; path: string }> = [{ value: detail, depth: 1, path: 'detail' }];
  while (stack.length > 0) {
    const { value, depth, path } = stack.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    if (depth > MAX_DETAIL_DEPTH) return `Detail: nested deeper than ${MAX_DETAIL_DEPTH} levels (at ${path})`;
    for (const key of Object.keys(value)) {
      const child = (value as Record<string, unknown>)[key];
      if (POLLUTION_KEYS.has(key)) return `Detail: key "${key}" at ${path} is not allowed`;
      if (key === 'constructor' && typeof child === 'object' && child !== null && !Array.isArray(child) && Object.hasOwn(child, 'prototype')) {
        return `Detail: key "constructor.prototype" at ${path} is not allowed`;
      }
      stack.push({ value: child, depth: depth + 1, path: `${path}.${key}` });
    }
  }
  return undefined;
}

export function checkEntry(entry: unknown, context: EntryContext): AcceptedEntry | EntryError {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return invalid('Entries: each entry must be an object');
  const { EventBusName, Source, DetailType, Detail, Time, Resources } = entry as PutEventsEntry;
  const bus = busOf(EventBusName, context.busName);
  if (!bus) return { ErrorCode: 'ResourceNotFoundException', ErrorMessage: `Event bus ${String(EventBusName)} does not exist.` };
  if (typeof Source !== 'string' || Source === '') return invalid('Source: is required');
  if (typeof DetailType !== 'string' || DetailType === '') return invalid('DetailType: is required');
  if (typeof Detail !== 'string') return invalid('Detail: is required (a JSON object as a string)');
  if (Buffer.byteLength(Detail) > MAX_ENTRY_BYTES) return invalid('Detail: entry exceeds 1 MB');
  if (Resources !== undefined && (!Array.isArray(Resources) || !Resources.every((resource) => typeof resource === 'string'))) return invalid('Resources: must be a list of ARNs');
  let detail: unknown;
  try {
    detail = JSON.parse(Detail);
  } catch {
    return { ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail: is not valid JSON' };
  }
  if (typeof detail === 'string') return { ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail: is a JSON string, not a JSON object (encoded twice?)' };
  if (typeof detail !== 'object' || detail === null || Array.isArray(detail)) return { ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail: must be a JSON object' };
  const problem = detailProblem(detail);
  if (problem) return invalid(problem);
  const time = eventTime(Time);
  if (typeof time !== 'string') return time;
  const id = randomUUID();
  if (bus === 'notifications' && PRIVACY_REQUEST_DETAIL_TYPES.includes(DetailType)) {
    // A privacy request (the privacy job's rule): its own schema, so a bad one fails here as the job would refuse it.
    const request = privacyRequestDetailSchema.safeParse(detail);
    if (!request.success) return invalid(`Detail: ${request.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; ')}`);
  } else if (bus === 'notifications') {
    try {
      validateEvent({ detailType: DetailType, detail, fallbackTime: time, findType: context.findType });
    } catch (error) {
      if (error instanceof EventValidationError) return invalid(error.message);
      throw error;
    }
  }
  const event = {
    version: '0',
    id,
    'detail-type': DetailType,
    source: Source,
    account: LOCAL_ACCOUNT_ID,
    time,
    region: context.region,
    resources: Resources ?? [],
    detail,
  };
  return { id, bus, detailType: DetailType, body: JSON.stringify(event), event };
}
