/**
 * The audit trail's part of an erasure (called by `npm run erase` after the tables are erased):
 * 1. the user's pseudonym salt is deleted: from then on nobody, key holder included, can recompute
 *    their pseudonym, so none of their records (written before, or in the salt caches' last minute)
 *    can be linked to them; the records themselves stay, intact and verifiable;
 * 2. an erasure record is appended (the user's unsalted marker), so `audit why` can still answer
 *    "erased, on <date>" to someone who holds the key and the id, and nothing more.
 * Run twice, it deletes nothing more and records the erasure again (both dates are answered).
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { randomBytes } from 'node:crypto';
import type { ErasureSubject } from '../core/privacy/erasure.js';
import type { AuditKeys, AuditSalts, AuditSink } from '../core/audit/ports.js';
import { systemClock } from '../core/ports/clock.js';
import { buildAuditTrail } from '../app/audit/build.js';

export interface AuditErasureOptions {
  salts: AuditSalts;
  /** Where the erasure record goes (the archive's sink) and the key of its marker; without them only the salt is deleted. */
  record?: { sink: AuditSink & { close?(): Promise<void> }; keys: AuditKeys };
}

export interface AuditErasureResult {
  saltDeleted: boolean;
  erasureRecorded: boolean;
}

export async function eraseFromAuditTrail(options: AuditErasureOptions, subject: ErasureSubject): Promise<AuditErasureResult> {
  await options.salts.forget(subject.tenantId, subject.userId);
  if (!options.record) return { saltDeleted: true, erasureRecorded: false };
  let unrecorded = 0;
  const trail = buildAuditTrail({
    // The operator tool's own stream: it appends beside the writers, never into their segments.
    stream: `erase/${randomBytes(6).toString('hex')}`,
    sink: { append: (lines) => options.record!.sink.append(lines) },
    keys: options.record.keys,
    salts: options.salts,
    clock: systemClock,
    logger: new Logger({ serviceName: 'erase', logLevel: 'ERROR' }),
    onCount: (count, records) => void (count !== 'written' && (unrecorded += records)),
  });
  trail.writer.recordErasure({ ...subject, atMs: Date.now() });
  await trail.flush();
  await options.record.sink.close?.();
  if (unrecorded > 0) throw new Error('the erasure record could not be written to the audit trail (the salt is deleted): run the erase again');
  return { saltDeleted: true, erasureRecorded: true };
}
