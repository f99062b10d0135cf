/**
 * The audit trail's record format, version 1: one JSON object per line (JSONL), the same on the local
 * runtime (`DATA_DIR/audit/audit.jsonl`) and in the S3 archive (Firehose objects). Published as JSON
 * Schema at `GET /schemas/audit.json` (src/local/contract-files.ts), generated from this zod schema.
 *
 * Every line is a link of a hash chain: `seq` counts the records of one `segment` of one `stream`
 * (a writer: the local runtime, one Lambda container), `prev` is the previous record's `hash`, and
 * `hash` is the SHA-256 of the line's bytes before `,"hash":` (src/core/audit/chain.ts). A segment
 * starts with a `segment` record; a `decision` is one stage's verdict for one (event, recipient)
 * (or for the whole event: `user` null); an `erasure` says a user was erased.
 *
 * No identifier a producer or user chose is written in clear except the tenant: event, user and
 * notification ids are keyed hashes (src/core/audit/pseudonyms.ts), so a record names nobody to a
 * reader without the key, and nobody at all once the user's salt is erased.
 */
import * as z from 'zod';

export const AUDIT_RECORD_VERSION = 1;

/** Where a decision was taken (the delivery trace's stages; `live` = the gate and the push of the socket). */
export const AUDIT_STAGES = ['intake', 'fanout', 'live', 'release', 'push', 'email', 'sms', 'dlq'] as const;
/** The channel a decision is about; null for the event as a whole (intake, DLQ, a celebrity feed write). */
export const AUDIT_CHANNELS = ['inbox', 'live', 'push', 'email', 'sms'] as const;
export const AUDIT_DECISIONS = [
  'accepted',
  'rejected',
  'deferred',
  'written',
  'admitted',
  'held',
  'suppressed',
  'denied',
  'pushed',
  'sent',
  'deduplicated',
  'not_connected',
  'failed',
  'released',
  'dropped',
  'dead_lettered',
] as const;
export const AUDIT_REASONS = [
  'invalid_event',
  'duplicate_event',
  'send_at',
  'celebrity_feed',
  'muted',
  'live_delivery_off',
  'channel_off',
  'quiet_hours',
  'rate_limited',
  'preferences_unavailable',
  'no_consent',
  'no_device',
  'no_email_address',
  'unsubscribed',
  'already_delivered',
  'offline',
  'push_failed',
  'provider_throttled',
  'provider_rejected',
  'invalid_endpoint',
  'erased_user',
  'erased_principal',
  'max_receives',
  'escalation',
  'already_seen',
  'already_read',
  'escalation_cancelled',
  'escalation_off',
  'spend_limit',
] as const;
/** Why a segment started: a writer's start, a restart on the same archive (local), or a failed sink write re-sealed for the backlog. */
export const AUDIT_SEGMENT_CAUSES = ['start', 'restart', 'failover'] as const;

export type AuditStage = (typeof AUDIT_STAGES)[number];
export type AuditChannel = (typeof AUDIT_CHANNELS)[number];
export type AuditDecision = (typeof AUDIT_DECISIONS)[number];
export type AuditReason = (typeof AUDIT_REASONS)[number];

const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/);
/** A keyed hash: `<kind letter>1.` + 24 base64url characters (144 bits). */
const ref = (kind: 'e' | 'u' | 'n' | 'x') => z.string().regex(new RegExp(`^${kind}1\\.[A-Za-z0-9_-]{24}$`));

const link = {
  v: z.literal(AUDIT_RECORD_VERSION),
  /** The writer: `local`, or `<function name>/<container id>` on Lambda. */
  stream: z.string().min(1).max(200),
  /** A ULID, unique per writer start and per failover. */
  segment: z.string().regex(/^[0-9A-HJKMNP-TV-Z]{26}$/),
  seq: z.number().int().min(0),
  prev: sha256Hex,
  /** When the record was written (segment, erasure) or the decision taken (decision), ISO 8601 UTC. */
  at: z.iso.datetime(),
};

/** What was decided, where, why, at which attempt: the same fields in a record and in a backlog's raw decision. */
export const auditVerdictFields = {
  stage: z.enum(AUDIT_STAGES),
  channel: z.enum(AUDIT_CHANNELS).nullable(),
  decision: z.enum(AUDIT_DECISIONS),
  reason: z.enum(AUDIT_REASONS).nullable(),
  /** The receive count of the queue message that carried the work (1 = first attempt). */
  attempt: z.number().int().min(1),
};

export const auditSegmentRecordSchema = z
  .object({
    ...link,
    kind: z.literal('segment'),
    cause: z.enum(AUDIT_SEGMENT_CAUSES),
    /** The record this segment follows (the writer's last durable record), when the writer knows one. */
    after: z.object({ segment: link.segment, seq: link.seq, hash: sha256Hex }).strict().nullable(),
    /** A torn last line left by a crash mid-append (local archive), acknowledged: its byte offset, length and SHA-256. */
    torn: z.object({ offset: z.number().int().min(0), length: z.number().int().min(1), sha256: sha256Hex }).strict().optional(),
  })
  .strict();

export const auditDecisionRecordSchema = z
  .object({
    ...link,
    kind: z.literal('decision'),
    tenant: z.string().min(1).max(256),
    event: ref('e'),
    /** The recipient's pseudonym; `erased` for a recipient erased before the decision was written; null for the whole event. */
    user: z.union([ref('u'), z.literal('erased')]).nullable(),
    notification: ref('n').nullable(),
    ...auditVerdictFields,
  })
  .strict();

export const auditErasureRecordSchema = z
  .object({
    ...link,
    kind: z.literal('erasure'),
    tenant: z.string().min(1).max(256),
    /** A keyed hash of the user id WITHOUT their salt: a key holder can tell the user was erased, and nothing more. */
    marker: ref('x'),
  })
  .strict();

/** One line of the audit trail, without its `hash` (the body the hash covers). */
export const auditRecordBodySchema = z.discriminatedUnion('kind', [auditSegmentRecordSchema, auditDecisionRecordSchema, auditErasureRecordSchema]);

/** One line of the audit trail as stored. */
export const auditRecordSchema = z.discriminatedUnion('kind', [
  auditSegmentRecordSchema.extend({ hash: sha256Hex }),
  auditDecisionRecordSchema.extend({ hash: sha256Hex }),
  auditErasureRecordSchema.extend({ hash: sha256Hex }),
]);

export type AuditRecordBody = z.infer<typeof auditRecordBodySchema>;
export type AuditRecord = z.infer<typeof auditRecordSchema>;
export type AuditSegmentRecord = z.infer<typeof auditSegmentRecordSchema>;
export type AuditDecisionRecord = z.infer<typeof auditDecisionRecordSchema>;
export type AuditErasureRecord = z.infer<typeof auditErasureRecordSchema>;

/** The JSON Schema (draft 2020-12) of one audit line. */
export function auditRecordJsonSchema(): Record<string, unknown> {
  const { $schema, ...schema } = z.toJSONSchema(auditRecordSchema, { target: 'draft-2020-12', io: 'output', unrepresentable: 'any' }) as Record<string, unknown>;
  return {
    $schema,
    $id: 'urn:notifications:schemas:audit',
    title: `Audit trail record, version ${AUDIT_RECORD_VERSION} (one JSON object per line; hash-chained per stream and segment)`,
    ...schema,
  };
}
