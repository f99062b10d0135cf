/**
 * Ports of the audit trail: where sealed lines go (the sink: Firehose to S3, or the local JSONL
 * archive), where they wait when the sink is down (the backlog: an SQS queue), and the key material
 * behind the pseudonyms (a per-tenant key; a per-user salt the erasure deletes).
 */
import type { AuditDecisionInput } from './decisions.js';
import type { SegmentHead } from './chain.js';

/** Where a writer's stream continues in an archive it can read (the local one). */
export interface SinkResume {
  /** The stream's last durable record (the new segment links `after` it). */
  after: SegmentHead | null;
  /** A torn last line (crash mid-append) the new segment acknowledges. */
  torn?: { offset: number; length: number; sha256: string };
}

export interface AuditSink {
  /** Appends the lines as one unit, in order (all or nothing); throws when the archive cannot take them. */
  append(lines: readonly string[]): Promise<void>;
  /** Only an archive the writer can read answers (the local one); Firehose cannot, and a Lambda container is a new stream anyway. */
  resume?(stream: string): Promise<SinkResume>;
}

/** An erasure to record (the marker is computed when it is written). */
export interface AuditErasureInput {
  tenantId: string;
  userId: string;
  atMs: number;
}

/**
 * A backlog message. `sealed`: whole segments the sink refused, appended to it as they are when it
 * is back. `raw`: decisions that could not be pseudonymized yet (key or salt store unreachable):
 * clear ids, so the queue is encrypted and its retention bounded; a drainer seals them later.
 */
export type AuditBacklogMessage =
  | { v: 1; kind: 'sealed'; lines: string[] }
  | { v: 1; kind: 'raw'; decisions: AuditDecisionInput[]; erasures: AuditErasureInput[] };

export interface AuditBacklog {
  /** Durably accepts one message (throws when it cannot). */
  put(message: AuditBacklogMessage): Promise<void>;
}

/** The per-tenant keys (KMS GenerateMac on AWS, a local master key file locally). */
export interface AuditKeys {
  tenantKey(tenantId: string): Promise<Buffer>;
}

/** A user's salt, or `erased` when the user has a live erasure tombstone and no salt (none is created then). */
export type SaltLookup = Buffer | 'erased';

/** The per-user salts (Idempotency table). */
export interface AuditSalts {
  /** Each user's salt; a user without one gets a new one (first writer wins), unless erased. */
  saltsOf(tenantId: string, userIds: readonly string[]): Promise<Map<string, SaltLookup>>;
  /** The salt if it exists (never creates one): `audit why`. */
  findSalt(tenantId: string, userId: string): Promise<Buffer | undefined>;
  /** Deletes the salt (erasure): from then on the user's records cannot be linked to them. */
  forget(tenantId: string, userId: string): Promise<void>;
}
