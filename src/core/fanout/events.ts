/**
 * The producer event (CONTRACT.md "Events"): an EventBridge event whose `detail-type` is the
 * notification type and whose `detail` is the envelope below. Validation names the failing field
 * (`detail.data.postId`) so a PutEvents answer or a DLQ log line says exactly what is wrong.
 */
import * as z from 'zod';
import type { NotificationType } from '../ports/notification-type.js';
import { prioritySchema, type Priority } from '../jobs/delivery-job.js';
import { ValidationError, type ErrorDetail } from '../model/errors.js';
import { IDENTIFIER_PATTERN, IDENTIFIER_RULE } from '../model/keys.js';
import type { Actor } from '../model/notification.js';

/** Direct recipients per event; larger audiences use `audience.followersOf`. */
const MAX_DIRECT_RECIPIENTS = 1_000;

/** DynamoDB refuses maps nested deeper than 32 levels; the item adds its own, so actor and data stop well below. */
export const MAX_STORED_NESTING = 16;

/** The actor is copied into every recipient's inbox item and every live push (128 KB), so it stays small. */
const MAX_ACTOR_BYTES = 4 * 1024;

const identifier = z.string().regex(IDENTIFIER_PATTERN, IDENTIFIER_RULE);

/**
 * The producer's time is only shown (`createdAt`); ids carry the arrival. Before 1970 is refused so
 * every `createdAt` is a non-negative epoch time for clients; any time ahead is accepted (it orders nothing).
 */
const eventTime = z.iso.datetime({ offset: true }).refine((time) => Date.parse(time) >= 0, 'must not be before 1970-01-01T00:00:00Z');

// The descriptions are the reference's "meaning" column and the events JSON Schema's (npm run docs:reference).
export const eventEnvelopeSchema = z
  .object({
    id: z.string().min(1).max(256).describe('your event id, the idempotency key: the same type, tenant and id is processed once (24 h) and keeps its notification ids'),
    tenantId: identifier.describe('the tenant, as your users\' tokens carry it'),
    actor: z
      .object({ id: identifier, name: z.string().max(256).optional().describe('shown in titles (else the id)') })
      .catchall(z.unknown())
      .refine((actor) => Buffer.byteLength(JSON.stringify(actor)) <= MAX_ACTOR_BYTES, `must be at most ${MAX_ACTOR_BYTES} bytes as JSON`)
      .describe('who acted; copied into every inbox item and push, extra fields (an avatar URL) included'),
    recipients: z
      .array(identifier)
      .min(1)
      .max(MAX_DIRECT_RECIPIENTS)
      .optional()
      .describe('the direct audience, each gets an inbox item; an event needs `recipients` or `audience.followersOf` unless its type derives its audience'),
    audience: z.object({ followersOf: identifier }).strict().optional().describe("an account whose followers are the audience (two-tier fan-out); a type whose audience is the actor's followers defaults it to the actor"),
    priority: prioritySchema.optional().describe("overrides the type's default priority"),
    sendAt: z.iso.datetime({ offset: true }).optional().describe('deliver later: an event further ahead than the minimum delay (60 s on AWS, 1 s locally) is deferred whole'),
    time: eventTime.optional().describe('the event time, shown as `createdAt`; it orders nothing (ids carry the arrival). Default: the EventBridge event time'),
    data: z.record(z.string(), z.unknown()).describe("validated by the type's data schema (below)"),
  })
  .strict();
export type EventEnvelope = z.infer<typeof eventEnvelopeSchema>;

/** The SQS body of an intake queue: the EventBridge event as the rule delivers it. */
const eventBridgeEventSchema = z.object({
  id: z.string().optional(),
  'detail-type': z.string().min(1),
  source: z.string().optional(),
  time: z.string().optional(),
  detail: z.unknown(),
});

/** A validated event, plain JSON (it is the idempotency payload and survives a round trip). */
export interface NotificationEvent {
  type: string;
  eventId: string;
  tenantId: string;
  actor: Actor;
  /** Direct recipients, deduplicated (envelope `recipients` plus any the type derives from data). */
  recipients: string[];
  /** Account whose followers are the audience, if any. */
  followersOf?: string;
  priority: Priority;
  /** The producer's event time, epoch ms: shown as `createdAt`, never orders anything (ids carry the arrival). */
  timeMs: number;
  /**
   * When the system accepted the event: the SentTimestamp of its intake record (set by SQS, not the
   * producer). Orders a follow or unfollow in its pair's history; absent = when the fan-out stamps it.
   */
  intakeMs?: number;
  sendAt?: string;
  data: Record<string, unknown>;
}

export class EventValidationError extends ValidationError {
  constructor(details: ErrorDetail[]) {
    super(`invalid event: ${details.map((detail) => `${detail.path}: ${detail.message}`).join('; ')}`, details, 'invalid_event');
  }
}

function issuesToDetails(prefix: string, issues: readonly z.core.$ZodIssue[]): ErrorDetail[] {
  return issues.map((issue) => ({ path: [prefix, ...issue.path.map(String)].filter(Boolean).join('.'), message: issue.message }));
}

export interface ValidateEventInput {
  detailType: string;
  /** `detail`: an object, or its JSON text as PutEvents carries it. */
  detail: unknown;
  /** Used when the envelope has no `time` (the EventBridge event time, stable across retries). */
  fallbackTime: string | undefined;
  findType(detailType: string): NotificationType | undefined;
}

/**
 * The first path (under `prefix`) whose value DynamoDB cannot store as sent: an integer beyond
 * ±(2^53 - 1) (JSON.parse already rounded it, and the marshaller refuses it), a number too small for
 * DynamoDB (below 1e-130), an empty map key, or nesting deeper than MAX_STORED_NESTING. Checked at
 * validation so such an event is refused with its reason instead of failing at the write.
 */
export function unstorableValue(value: unknown, prefix: string, depth = 0): ErrorDetail | undefined {
  if (typeof value === 'number') {
    if (Number.isInteger(value) && !Number.isSafeInteger(value)) return { path: prefix, message: 'integer beyond ±(2^53 - 1) cannot be stored exactly; send it as a string' };
    if (value !== 0 && Math.abs(value) < 1e-130) return { path: prefix, message: 'number too small to store (below 1e-130)' };
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  if (depth >= MAX_STORED_NESTING) return { path: prefix, message: `nested deeper than ${MAX_STORED_NESTING} levels` };
  const entries = Array.isArray(value) ? value.map((item, index) => [String(index), item] as const) : Object.entries(value);
  for (const [key, item] of entries) {
    if (key === '') return { path: prefix, message: 'has an empty key, which cannot be stored' };
    const found = unstorableValue(item, `${prefix}.${key}`, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/** Validates envelope and data against the type; throws EventValidationError naming each bad field. */
export function validateEvent(input: ValidateEventInput): { event: NotificationEvent; type: NotificationType } {
  const type = input.findType(input.detailType);
  if (!type) throw new EventValidationError([{ path: 'detail-type', message: `unknown notification type ${JSON.stringify(input.detailType).slice(0, 80)}` }]);
  let detail = input.detail;
  if (typeof detail === 'string') {
    try {
      detail = JSON.parse(detail);
    } catch {
      throw new EventValidationError([{ path: 'detail', message: 'is not valid JSON' }]);
    }
  }
  const envelope = eventEnvelopeSchema.safeParse(detail);
  if (!envelope.success) throw new EventValidationError(issuesToDetails('detail', envelope.error.issues));
  const data = type.dataSchema.safeParse(envelope.data.data);
  if (!data.success) throw new EventValidationError(issuesToDetails('detail.data', data.error.issues));
  const validData = data.data as Record<string, unknown>;

  const recipients = [...new Set([...(envelope.data.recipients ?? []), ...(type.recipientsFromData?.(validData) ?? [])])];
  const followersOf = envelope.data.audience?.followersOf ?? (type.audience === 'followersOfActor' ? envelope.data.actor.id : undefined);
  if (type.audience !== 'none' && recipients.length === 0 && followersOf === undefined) {
    throw new EventValidationError([{ path: 'detail.recipients', message: `${type.detailType} needs recipients or audience.followersOf` }]);
  }
  const time = envelope.data.time ?? input.fallbackTime;
  const timeMs = time === undefined ? Number.NaN : Date.parse(time);
  if (!Number.isFinite(timeMs) || timeMs < 0) throw new EventValidationError([{ path: 'detail.time', message: 'missing or invalid event time' }]);
  const unstorable = unstorableValue(envelope.data.actor, 'detail.actor') ?? unstorableValue(validData, 'detail.data');
  if (unstorable) throw new EventValidationError([unstorable]);

  const event: NotificationEvent = {
    type: type.detailType,
    eventId: envelope.data.id,
    tenantId: envelope.data.tenantId,
    actor: envelope.data.actor as Actor,
    recipients,
    ...(followersOf !== undefined ? { followersOf } : {}),
    priority: envelope.data.priority ?? type.defaultPriority,
    timeMs,
    ...(envelope.data.sendAt !== undefined ? { sendAt: envelope.data.sendAt } : {}),
    data: validData,
  };
  return { event, type };
}

/** Parses an intake SQS body (the EventBridge event JSON) and validates its detail. */
export function validateEventBridgeBody(body: string, findType: ValidateEventInput['findType']): { event: NotificationEvent; type: NotificationType } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new EventValidationError([{ path: '(body)', message: 'is not valid JSON' }]);
  }
  const envelope = eventBridgeEventSchema.safeParse(parsed);
  if (!envelope.success) throw new EventValidationError(issuesToDetails('', envelope.error.issues));
  return validateEvent({ detailType: envelope.data['detail-type'], detail: envelope.data.detail, fallbackTime: envelope.data.time, findType });
}
