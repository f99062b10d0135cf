/**
 * Delivery jobs carry an HMAC-SHA256 over their JSON (`sig`), keyed with a secret only the fan-out
 * (the one producer of jobs), the channel consumers and the delivery functions hold (a snooze comeback
 * is signed with a key of its own, `isSnoozeComebackJob`). Delivery pushes a job's rendered
 * notification to open sockets, so a message put on a delivery queue by anyone else (an insider
 * with sqs:SendMessage, a misrouted producer) must not be pushed: without a valid `sig` it is
 * dropped. Costs one HMAC per job on each side and no DynamoDB read.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { DeliveryJob } from './delivery-job.js';
import type { AlertJob } from './alert-job.js';

export const DELIVERY_JOB_SIGNATURE_FIELD = 'sig';

/** The event id of a snooze comeback's job: `snooze:<original notification id>`. */
export const SNOOZE_EVENT_ID_PREFIX = 'snooze:';

/**
 * What a job signed with the snooze key may be: one urgent push of one notification to one user (the
 * comeback of an item they snoozed). The REST write function holds that key instead of the
 * delivery-job key, so even taken over it cannot sign a celebrity page, a retraction or a job for many users.
 */
export function isSnoozeComebackJob(job: DeliveryJob): boolean {
  return job.eventId.startsWith(SNOOZE_EVENT_ID_PREFIX) && job.priority === 'urgent' && job.retracted === undefined && job.target.kind === 'recipients' && job.target.recipients.length === 1;
}

/** A snooze comeback's release (a reference to one item of its owner, urgent): what the snooze key may sign. */
export function isSnoozeComebackRelease(release: { eventId: string; priority: string }): boolean {
  return release.eventId.startsWith(SNOOZE_EVENT_ID_PREFIX) && release.priority === 'urgent';
}

const hmacOf = (payload: string, secret: string) => createHmac('sha256', secret).update(payload).digest();

/** The queue body of a job: its JSON with `sig` added last (so the verifier can strip it and re-serialise). */
export function signedDeliveryJobBody(job: DeliveryJob | AlertJob, secret: string): string {
  return signedMessageBody(job, secret);
}

/** The same signature over any message the delivery and channel consumers take (an item release). */
export function signedMessageBody(message: object, secret: string): string {
  return JSON.stringify({ ...message, [DELIVERY_JOB_SIGNATURE_FIELD]: hmacOf(JSON.stringify(message), secret).toString('base64url') });
}

/**
 * Whether a parsed queue body carries a valid signature of the rest of it. JSON.parse keeps key
 * order and JSON.stringify of a parsed JSON value reproduces the signed bytes.
 */
export function hasValidDeliveryJobSignature(body: unknown, secret: string): boolean {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const { [DELIVERY_JOB_SIGNATURE_FIELD]: signature, ...job } = body as Record<string, unknown>;
  if (typeof signature !== 'string') return false;
  const expected = hmacOf(JSON.stringify(job), secret);
  const given = Buffer.from(signature, 'base64url');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** A parsed signed body without its signature field (a strict schema then checks the rest). */
export function withoutSignature(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const { [DELIVERY_JOB_SIGNATURE_FIELD]: _signature, ...rest } = body as Record<string, unknown>;
  return rest;
}
