/**
 * The erase and export job, its messages and its names (GDPR Art. 17 and 15). One queue carries both:
 *
 * - a product backend publishes `user.erased` or `user.export.requested` on the notifications bus
 *   (detail `{ tenantId, userId }`) and a rule puts the event on the queue;
 * - an operator calls the operator API (IAM-authorised), which puts a job message on it.
 *
 * An erasure runs in bounded steps, each a queue message: a step that is not done sends the next one
 * (delayed through the grace period). An export streams the user's document into the export store in
 * one run. Job ids are opaque to callers; they name the job's record, not the user: an erasure's is
 * the digest its tombstone is keyed by, an export's a ULID.
 */
import * as z from 'zod';
import { IDENTIFIER_PATTERN } from '../model/keys.js';
import { notificationId, ULID_PATTERN } from '../model/ids.js';
import { erasureRecordId, type ErasureSubject } from './erasure.js';

/** Default wait between the tombstone and the first delete after the channels: over the fan-out function's 60 s timeout on AWS. */
export const DEFAULT_ERASURE_GRACE_MS = 90_000;
/** The tombstone outlives in-flight events: SQS keeps a message 14 days, a DLQ redrive comes later still. */
export const DEFAULT_TOMBSTONE_TTL_DAYS = 30;

/** The detail-types a product backend publishes on the bus to start a job. */
export const PRIVACY_REQUEST_TYPES = { erase: 'user.erased', export: 'user.export.requested' } as const;
export const PRIVACY_REQUEST_DETAIL_TYPES: readonly string[] = Object.values(PRIVACY_REQUEST_TYPES);

const identifier = z.string().regex(IDENTIFIER_PATTERN);

/** The detail of a privacy request event (nothing else: an erasure request carries no data about the user). */
export const privacyRequestDetailSchema = z.object({ tenantId: identifier, userId: identifier }).strict();

export const privacyJobMessageSchema = z.discriminatedUnion('kind', [
  z.object({ v: z.literal(1), kind: z.literal('erase'), tenantId: identifier, userId: identifier }).strict(),
  z.object({ v: z.literal(1), kind: z.literal('export'), tenantId: identifier, userId: identifier, jobId: z.string().regex(ULID_PATTERN) }).strict(),
]);
export type PrivacyJobMessage = z.infer<typeof privacyJobMessageSchema>;

const eventBridgeEventSchema = z.object({ id: z.string().min(1).max(256), 'detail-type': z.string(), time: z.string(), detail: z.unknown() }).loose();

export class InvalidPrivacyJobError extends Error {
  override readonly name = 'InvalidPrivacyJobError';
}

const issuesOf = (error: z.ZodError) => error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; ');

/**
 * A queue body as a job: an operator API message, or a privacy request event as the bus rule
 * delivers it (an export's job id is derived from the event, so a redelivered event names the same job).
 */
export function parsePrivacyJob(body: string): PrivacyJobMessage {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new InvalidPrivacyJobError('body is not JSON');
  }
  const event = eventBridgeEventSchema.safeParse(parsed);
  if (event.success) {
    const detailType = event.data['detail-type'];
    const detail = privacyRequestDetailSchema.safeParse(event.data.detail);
    if (!detail.success) throw new InvalidPrivacyJobError(`detail: ${issuesOf(detail.error)}`);
    if (detailType === PRIVACY_REQUEST_TYPES.erase) return { v: 1, kind: 'erase', ...detail.data };
    if (detailType === PRIVACY_REQUEST_TYPES.export) return { v: 1, kind: 'export', ...detail.data, jobId: exportJobIdOfEvent(detail.data, event.data.id, event.data.time) };
    throw new InvalidPrivacyJobError(`detail-type ${JSON.stringify(detailType)} is not a privacy request`);
  }
  const message = privacyJobMessageSchema.safeParse(parsed);
  if (!message.success) throw new InvalidPrivacyJobError(issuesOf(message.error));
  return message.data;
}

/** A new export's job id: a ULID at `nowMs` (random part from the subject and a nonce). */
export function newExportJobId(subject: ErasureSubject, nowMs: number, nonce: string): string {
  return notificationId({ tenantId: subject.tenantId, type: 'export', eventId: nonce, recipient: subject.userId, timeMs: nowMs });
}

function exportJobIdOfEvent(subject: ErasureSubject, eventId: string, time: string): string {
  const timeMs = Date.parse(time);
  return newExportJobId(subject, Number.isFinite(timeMs) ? timeMs : 0, `event\u0000${eventId}`);
}

/** What a job id names: an erasure's tombstone record or an export's record, in one tenant. */
export type JobRef = { kind: 'erase'; tenantId: string; recordId: string } | { kind: 'export'; tenantId: string; jobId: string };

const jobRefSchema = z.union([
  z.object({ k: z.literal('e'), t: identifier, r: z.string().min(1).max(2_048) }).strict(),
  z.object({ k: z.literal('x'), t: identifier, j: z.string().regex(ULID_PATTERN) }).strict(),
]);

/** The opaque job id callers get back and ask about (base64url JSON; it does not name the user). */
export function jobIdOf(ref: JobRef): string {
  const payload = ref.kind === 'erase' ? { k: 'e', t: ref.tenantId, r: ref.recordId } : { k: 'x', t: ref.tenantId, j: ref.jobId };
  return Buffer.from(JSON.stringify(payload)).toString('base64url');
}

export function erasureJobId(subject: ErasureSubject): string {
  return jobIdOf({ kind: 'erase', tenantId: subject.tenantId, recordId: erasureRecordId(subject) });
}

/** The job a caller's id names; undefined for anything that is not one. */
export function parseJobId(jobId: string): JobRef | undefined {
  if (!/^[A-Za-z0-9_-]{1,4096}$/.test(jobId)) return undefined;
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(jobId, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  const parsed = jobRefSchema.safeParse(payload);
  if (!parsed.success) return undefined;
  return parsed.data.k === 'e' ? { kind: 'erase', tenantId: parsed.data.t, recordId: parsed.data.r } : { kind: 'export', tenantId: parsed.data.t, jobId: parsed.data.j };
}

/** Where an export document is stored: under a digest of the subject (the erasure deletes them all), never their id. */
export function exportObjectKey(subject: ErasureSubject, jobId: string): string {
  return `${exportPrefixOf(subject)}${jobId}.json`;
}

export function exportPrefixOf(subject: ErasureSubject): string {
  const digest = erasureRecordId(subject).split('#').pop()!;
  return `exports/${digest}/`;
}
