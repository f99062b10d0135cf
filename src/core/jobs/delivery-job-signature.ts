/**
 * Delivery jobs carry an HMAC-SHA256 over their JSON (`sig`), keyed with a secret only the fan-out
 * (the one producer of jobs) and the delivery functions hold. Delivery pushes a job's rendered
 * notification to open sockets, so a message put on a delivery queue by anyone else (an insider
 * with sqs:SendMessage, a misrouted producer) must not be pushed: without a valid `sig` it is
 * dropped. Costs one HMAC per job on each side and no DynamoDB read.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { DeliveryJob } from './delivery-job.js';
import type { AlertJob } from './alert-job.js';

export const DELIVERY_JOB_SIGNATURE_FIELD = 'sig';

const hmacOf = (payload: string, secret: string) => createHmac('sha256', secret).update(payload).digest();

/** The queue body of a job: its JSON with `sig` added last (so the verifier can strip it and re-serialise). */
export function signedDeliveryJobBody<Job extends DeliveryJob | AlertJob>(job: Job, secret: string): string {
  return JSON.stringify({ ...job, [DELIVERY_JOB_SIGNATURE_FIELD]: hmacOf(JSON.stringify(job), secret).toString('base64url') });
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
