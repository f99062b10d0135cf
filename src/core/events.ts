/**
 * The producer event (CONTRACT.md "Events"): an EventBridge event whose `detail-type` is the
 * notification type and whose `detail` is the envelope below. Validation names the failing field
 * (`detail.data.postId`) so a PutEvents answer or a DLQ log line says exactly what is wrong.
 */
import * as z from 'zod';
import type { NotificationType } from './ports/notification-type.js';
import { prioritySchema, type Priority } from './delivery-job.js';
import { ValidationError, type ErrorDetail } from './errors.js';
import { IDENTIFIER_PATTERN, IDENTIFIER_RULE } from './keys.js';
import type { Actor } from './notification.js';

/** Direct recipients per event; larger audiences use `audience.followersOf`. */
const MAX_DIRECT_RECIPIENTS = 1_000;

/**
 * How far ahead of the receiver's clock an event `time` may be (clock skew). A later time would put
 * the notification above every read mark (read-all could never clear it) and at the top of the inbox
 * until then; deliveries in the future are what `sendAt` is for.
 */
const MAX_EVENT_TIME_AHEAD_MS = 5 * 60 * 1000;

/** The actor is copied into every recipient's inbox item and every live push (128 KB), so it stays small. */
const MAX_ACTOR_BYTES = 4 * 1024;

const identifier = z.string().regex(IDENTIFIER_PATTERN, IDENTIFIER_RULE);

/** Notification ids are ULIDs: their time part cannot hold an instant before 1970. */
const eventTime = z.iso.datetime({ offset: true }).refine((time) => Date.parse(time) >= 0, 'must not be before 1970-01-01T00:00:00Z');

const eventEnvelopeSchema = z
  .object({
    id: z.string().min(1).max(256),
    tenantId: identifier,
    actor: z
      .object({ id: identifier, name: z.string().max(256).optional() })
      .catchall(z.unknown())
      .refine((actor) => Buffer.byteLength(JSON.stringify(actor)) <= MAX_ACTOR_BYTES, `must be at most ${MAX_ACTOR_BYTES} bytes as JSON`),
    recipients: z.array(identifier).min(1).max(MAX_DIRECT_RECIPIENTS).optional(),
    audience: z.object({ followersOf: identifier }).strict().optional(),
    priority: prioritySchema.optional(),
    sendAt: z.iso.datetime({ offset: true }).optional(),
    time: eventTime.optional(),
    data: z.record(z.string(), z.unknown()),
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
  /** Event time, epoch ms: the time part of every notification id of the event. */
  timeMs: number;
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
  /** The receiver's clock (epoch ms): a `time` more than MAX_EVENT_TIME_AHEAD_MS ahead is refused. */
  nowMs?: number;
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
  if (input.nowMs !== undefined && timeMs > input.nowMs + MAX_EVENT_TIME_AHEAD_MS) {
    throw new EventValidationError([{ path: 'detail.time', message: 'must not be more than 5 minutes in the future (use sendAt to deliver later)' }]);
  }

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
export function validateEventBridgeBody(body: string, findType: ValidateEventInput['findType'], nowMs?: number): { event: NotificationEvent; type: NotificationType } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new EventValidationError([{ path: '(body)', message: 'is not valid JSON' }]);
  }
  const envelope = eventBridgeEventSchema.safeParse(parsed);
  if (!envelope.success) throw new EventValidationError(issuesToDetails('', envelope.error.issues));
  return validateEvent({ detailType: envelope.data['detail-type'], detail: envelope.data.detail, fallbackTime: envelope.data.time, findType, nowMs });
}
