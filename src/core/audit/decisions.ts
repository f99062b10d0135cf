/**
 * What the audit trail says of a delivery-trace entry: every stage already records its decision per
 * (event, recipient) through the TraceRecorder port; the audit trail is one more recorder, and this
 * table maps each (stage, outcome) to the audit vocabulary (src/contract/audit-record.ts). Free text
 * (`detail`) never reaches the audit trail: it may name people ("written to 4 feed shards of alice").
 */
import type { AuditChannel, AuditDecision, AuditReason, AuditStage } from '../../contract/audit-record.js';
import type { TraceEntry, TraceOutcome, TraceStage } from '../ports/trace.js';

/** One decision before pseudonymization (clear ids: it never leaves the writer's memory except in the backlog). */
export interface AuditDecisionInput {
  atMs: number;
  tenantId: string;
  eventId: string;
  userId?: string;
  notificationId?: string;
  stage: AuditStage;
  channel: AuditChannel | null;
  decision: AuditDecision;
  reason: AuditReason | null;
  attempt: number;
}

type Verdict = [AuditDecision, AuditReason | null];

/** The live gate's verdicts (also the release stage's when it holds or drops again). */
const GATE: Partial<Record<TraceOutcome, Verdict>> = {
  admitted: ['admitted', null],
  quiet_hours: ['held', 'quiet_hours'],
  rate_limited: ['held', 'rate_limited'],
  preferences_unavailable: ['held', 'preferences_unavailable'],
  muted: ['suppressed', 'muted'],
  live_delivery_off: ['suppressed', 'live_delivery_off'],
};

/** Push, email and SMS: the channel's own rules, the provider's answer. */
const CHANNEL: Partial<Record<TraceOutcome, Verdict>> = {
  sent: ['sent', null],
  quiet_hours: ['held', 'quiet_hours'],
  rate_limited: ['held', 'rate_limited'],
  preferences_unavailable: ['held', 'preferences_unavailable'],
  muted: ['suppressed', 'muted'],
  live_delivery_off: ['suppressed', 'live_delivery_off'],
  channel_off: ['suppressed', 'channel_off'],
  no_consent: ['denied', 'no_consent'],
  no_device: ['suppressed', 'no_device'],
  no_email_address: ['suppressed', 'no_email_address'],
  unsubscribed: ['suppressed', 'unsubscribed'],
  deduplicated: ['deduplicated', 'already_delivered'],
  send_failed: ['failed', 'provider_throttled'],
  provider_rejected: ['dropped', 'provider_rejected'],
  invalid_endpoint: ['dropped', 'invalid_endpoint'],
  spend_limit: ['dropped', 'spend_limit'],
  escalated: ['sent', 'escalation'],
  escalation_seen: ['suppressed', 'already_seen'],
  escalation_read: ['suppressed', 'already_read'],
  escalation_cancelled: ['suppressed', 'escalation_cancelled'],
  escalation_off: ['suppressed', 'escalation_off'],
};

const BY_STAGE: Record<TraceStage, { stage: AuditStage; verdicts: Partial<Record<TraceOutcome, Verdict>> }> = {
  intake: { stage: 'intake', verdicts: { accepted: ['accepted', null], invalid: ['rejected', 'invalid_event'], deferred: ['deferred', 'send_at'], deduplicated: ['deduplicated', 'duplicate_event'] } },
  fanout: { stage: 'fanout', verdicts: { inbox_written: ['written', null], celebrity_feed: ['written', 'celebrity_feed'], muted: ['suppressed', 'muted'], erased: ['dropped', 'erased_user'] } },
  gate: { stage: 'live', verdicts: GATE },
  delivery: {
    stage: 'live',
    verdicts: { delivered_live: ['pushed', null], deduplicated: ['deduplicated', 'already_delivered'], offline: ['not_connected', 'offline'], push_failed: ['failed', 'push_failed'] },
  },
  release: { stage: 'release', verdicts: { ...GATE, released: ['released', null], dropped: ['dropped', 'preferences_unavailable'] } },
  dlq: { stage: 'dlq', verdicts: { dead_lettered: ['dead_lettered', 'max_receives'] } },
  push: { stage: 'push', verdicts: CHANNEL },
  email: { stage: 'email', verdicts: CHANNEL },
  sms: { stage: 'sms', verdicts: CHANNEL },
};

const CHANNEL_OF: Record<AuditStage, AuditChannel | null> = { intake: null, fanout: 'inbox', live: 'live', release: 'live', push: 'push', email: 'email', sms: 'sms', dlq: null };

/** The audit decision of a trace entry (undefined for a (stage, outcome) pair no stage produces). */
export function auditDecisionOf(entry: TraceEntry, attempt: number): AuditDecisionInput | undefined {
  const mapping = BY_STAGE[entry.stage];
  const verdict = mapping?.verdicts[entry.outcome];
  if (!verdict) return undefined;
  const [decision, reason] = verdict;
  // An event-wide record (no recipient) speaks of no channel, but an erased actor or followee drops the event for everyone.
  const eventWide = entry.userId === undefined;
  return {
    atMs: entry.atMs,
    tenantId: entry.tenantId,
    eventId: entry.eventId,
    ...(entry.userId !== undefined ? { userId: entry.userId } : {}),
    ...(entry.notificationId !== undefined ? { notificationId: entry.notificationId } : {}),
    stage: mapping.stage,
    channel: eventWide && entry.outcome !== 'celebrity_feed' ? null : CHANNEL_OF[mapping.stage],
    decision,
    reason: eventWide && entry.outcome === 'erased' ? 'erased_principal' : reason,
    attempt: Math.max(1, Math.floor(attempt)),
  };
}
