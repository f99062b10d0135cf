/**
 * What the audit trail of a data dir proves about a load: the chain verifies (torn lines from kills
 * acknowledged), no record is there twice, every event has an `intake accepted` decision and every
 * (recipient, event) a `fanout written` one. Reads the archive once; the salts from the running runtime.
 */
import { eventRef, userKey, userRef } from '../../src/core/audit/pseudonyms.js';
import { ChainVerifier } from '../../src/core/audit/chain.js';
import { localAuditAccess } from '../../src/ops/audit-access.js';
import { localTarget } from '../../src/ops/targets.js';

export interface AuditCoverage {
  ok: boolean;
  problems: string[];
  tornLines: number;
  duplicates: number;
  records: number;
  /** Event ids without an `intake accepted` decision. */
  missingAccepted: string[];
  /** `recipient/eventId` without a `fanout written` decision. */
  missingWritten: string[];
}

export async function auditCoverage(dataDir: string, tenantId: string, pairs: ReadonlySet<string>): Promise<AuditCoverage> {
  const target = await localTarget(dataDir);
  try {
    const access = await localAuditAccess(dataDir, target);
    const tenantKey = await access.keys.tenantKey(tenantId);
    const users = [...new Set([...pairs].map((pair) => pair.split('/')[0]!))];
    const events = [...new Set([...pairs].map((pair) => pair.slice(pair.indexOf('/') + 1)))];
    const pseudonyms = new Map<string, string>();
    for (const userId of users) {
      const salt = await access.salts.findSalt(tenantId, userId);
      if (salt) pseudonyms.set(userRef(userKey(tenantKey, salt, userId)), userId);
    }
    const eventIds = new Map(events.map((eventId) => [eventRef(tenantKey, eventId), eventId]));
    const accepted = new Set<string>();
    const written = new Set<string>();
    const verifier = new ChainVerifier();
    for await (const line of access.lines()) {
      const record = verifier.add(line);
      if (!record || record.kind !== 'decision' || record.tenant !== tenantId) continue;
      const eventId = eventIds.get(record.event);
      if (eventId === undefined) continue;
      if (record.stage === 'intake' && record.decision === 'accepted') accepted.add(eventId);
      const userId = record.user ? pseudonyms.get(record.user) : undefined;
      if (record.stage === 'fanout' && record.decision === 'written' && userId !== undefined) written.add(`${userId}/${eventId}`);
    }
    const report = verifier.finish();
    return {
      ok: report.ok,
      problems: report.problems.map((problem) => `${problem.line}: ${problem.message}`),
      tornLines: report.warnings.length,
      duplicates: report.duplicates,
      records: report.records,
      missingAccepted: events.filter((eventId) => !accepted.has(eventId)),
      missingWritten: [...pairs].filter((pair) => !written.has(pair)),
    };
  } finally {
    target.destroy();
  }
}
