/**
 * The audit trail on the local runtime: the same writer, pseudonymizer, salts (dynalite's
 * Idempotency table), backlog (a local SQS queue through the real SQS SDK) and drainer as on AWS;
 * the sink is the JSONL archive `DATA_DIR/audit/audit.jsonl` instead of Firehose + S3, and the HMAC
 * master key a file beside it instead of KMS. One stream, `local`: each start opens a new segment
 * that links to the stream's last durable record (and acknowledges a torn last line).
 */
import { join } from 'node:path';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { FileAuditArchive } from '../../adapters/audit/file-archive.js';
import { DynamoAuditSalts } from '../../adapters/dynamo/audit-salts.js';
import type { AuditCount } from '../../core/audit/audit-writer.js';
import type { AuditBacklog, AuditSink } from '../../core/audit/ports.js';
import type { Clock } from '../../core/ports/clock.js';
import type { AuditTrail } from '../../app/audit/audit-trail.js';
import { buildAuditTrail } from '../../app/audit/build.js';
import { loadLocalAuditKeys } from './local-audit-keys.js';

export const LOCAL_AUDIT_STREAM = 'local';

export function localAuditDir(dataDir: string): string {
  return join(dataDir, 'audit');
}

export interface LocalAudit {
  trail: AuditTrail;
  archive: FileAuditArchive;
  /** Records written, buffered on the backlog, or only logged, since the start (the local stand-in of the metrics). */
  counts: Record<AuditCount, number>;
  /** Appends to the archive so far (one per group commit): records / appends = the group commit's size. */
  readonly appends: number;
  /** Dev and tests: while false, the sink refuses every append (an archive outage). */
  setSinkAvailable(available: boolean): void;
  /** Flushes what is pending and closes the archive. */
  close(): Promise<void>;
}

export interface LocalAuditOptions {
  dataDir: string;
  documentClient: DynamoDBDocumentClient;
  idempotencyTable: string;
  backlog: AuditBacklog;
  logger: Logger;
  clock: Clock;
  /** The archive's longest wait for an fdatasync after a write (default 1 s; 0 = after every append). */
  syncIntervalMs?: number;
}

export async function startLocalAudit(options: LocalAuditOptions): Promise<LocalAudit> {
  const dir = localAuditDir(options.dataDir);
  const archive = new FileAuditArchive(dir, options.syncIntervalMs !== undefined ? { syncIntervalMs: options.syncIntervalMs } : {});
  // Read once now: a torn tail left by a crash is terminated before anything (the drainer, the erase CLI) appends.
  await archive.open();
  const counts: Record<AuditCount, number> = { written: 0, buffered: 0, unbuffered: 0 };
  let available = true;
  let appends = 0;
  const sink: AuditSink = {
    append: (lines) => {
      if (!available) return Promise.reject(new Error('local audit archive unavailable (outage switch)'));
      appends += 1;
      return archive.append(lines);
    },
    resume: (stream) => archive.resume(stream),
  };
  const trail = buildAuditTrail({
    stream: LOCAL_AUDIT_STREAM,
    sink,
    backlog: options.backlog,
    keys: await loadLocalAuditKeys(dir),
    salts: new DynamoAuditSalts(options.documentClient, options.idempotencyTable, () => options.clock.nowMs()),
    clock: options.clock,
    logger: options.logger,
    onCount: (count, records) => void (counts[count] += records),
  });
  return {
    trail,
    archive,
    counts,
    get appends() {
      return appends;
    },
    setSinkAvailable: (value) => void (available = value),
    async close() {
      await trail.flush();
      await archive.close();
    },
  };
}
