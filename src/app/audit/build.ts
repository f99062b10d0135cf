/** Assembles an audit trail from its adapters (AWS: src/app/audit/aws.ts; local: src/local/audit/local-audit.ts). */
import type { Logger } from '@aws-lambda-powertools/logger';
import { monotonicFactory } from 'ulid';
import { AuditWriter, type AuditCount } from '../../core/audit/audit-writer.js';
import type { AuditBacklog, AuditKeys, AuditSalts, AuditSink } from '../../core/audit/ports.js';
import { Pseudonymizer } from '../../core/audit/pseudonymizer.js';
import type { Clock } from '../../core/ports/clock.js';
import { auditRecorder, type AuditTrail } from './audit-trail.js';

export interface AuditTrailParts {
  stream: string;
  sink: AuditSink;
  backlog?: AuditBacklog;
  keys: AuditKeys;
  salts: AuditSalts;
  clock: Clock;
  logger: Logger;
  onCount?(count: AuditCount, records: number): void;
  saltCacheTtlMs?: number;
}

export function buildAuditTrail(parts: AuditTrailParts): AuditTrail {
  const pseudonymizer = new Pseudonymizer(parts.keys, parts.salts, parts.clock, parts.saltCacheTtlMs);
  const segmentIds = monotonicFactory();
  const writer = new AuditWriter({
    stream: parts.stream,
    sink: parts.sink,
    ...(parts.backlog ? { backlog: parts.backlog } : {}),
    pseudonymizer,
    newSegmentId: () => segmentIds(parts.clock.nowMs()),
    nowMs: () => parts.clock.nowMs(),
    onEvent: (level, message, context) => (level === 'error' ? parts.logger.error(message, context) : level === 'warn' ? parts.logger.warn(message, context) : parts.logger.debug(message, context)),
    ...(parts.onCount ? { onCount: parts.onCount } : {}),
  });
  return { writer, sink: parts.sink, pseudonymizer, salts: parts.salts, recorder: auditRecorder(writer), flush: () => writer.flush() };
}
