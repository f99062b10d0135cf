/**
 * "What happened to user X with event Y", from the audit trail alone: the key holder recomputes the
 * event's hash and the user's pseudonym (with their salt) and collects the matching records. Once the
 * salt is erased the pseudonym cannot be recomputed; the erasure record (the user's unsalted marker)
 * then says that they were erased, and when.
 */
import type { AuditDecisionRecord, AuditRecord } from '../../contract/audit-record.js';
import { erasureMarker, eventRef, userKey, userRef } from './pseudonyms.js';

export interface WhyQuery {
  tenantId: string;
  userId: string;
  eventId: string;
}

export interface WhyAnswer {
  /** `found`: the user has a salt (their records are linkable); `erased`: an erasure record names them; `unknown`: neither. */
  status: 'found' | 'erased' | 'unknown';
  event: string;
  user?: string;
  erasedAt?: string[];
  /** The user's decisions for the event and the event-wide ones, oldest first. */
  decisions: AuditDecisionRecord[];
  /** Decisions for this event about recipients erased before they were written (unlinkable). */
  erasedRecipientDecisions: number;
}

/** Collects the answer while the archive is read (one pass). */
export class WhyCollector {
  private readonly event: string;
  private readonly user: string | undefined;
  private readonly marker: string;
  private readonly decisions: AuditDecisionRecord[] = [];
  private readonly erasedAt: string[] = [];
  private erasedRecipients = 0;

  constructor(
    private readonly query: WhyQuery,
    tenantKey: Buffer,
    salt: Buffer | undefined,
  ) {
    this.event = eventRef(tenantKey, query.eventId);
    this.user = salt ? userRef(userKey(tenantKey, salt, query.userId)) : undefined;
    this.marker = erasureMarker(tenantKey, query.userId);
  }

  add(record: AuditRecord): void {
    if (record.kind === 'erasure') {
      if (record.tenant === this.query.tenantId && record.marker === this.marker) this.erasedAt.push(record.at);
      return;
    }
    if (record.kind !== 'decision' || record.tenant !== this.query.tenantId || record.event !== this.event) return;
    if (record.user === null || (this.user !== undefined && record.user === this.user)) this.decisions.push(record);
    else if (record.user === 'erased') this.erasedRecipients += 1;
  }

  answer(): WhyAnswer {
    const status = this.user ? 'found' : this.erasedAt.length > 0 ? 'erased' : 'unknown';
    return {
      status,
      event: this.event,
      ...(this.user ? { user: this.user } : {}),
      ...(this.erasedAt.length > 0 ? { erasedAt: [...this.erasedAt].sort() } : {}),
      decisions: [...this.decisions].sort((a, b) => a.at.localeCompare(b.at)),
      erasedRecipientDecisions: this.erasedRecipients,
    };
  }
}

const REASONS: Record<string, string> = {
  invalid_event: 'the event failed validation',
  duplicate_event: 'a duplicate of an event already processed (nothing written again)',
  send_at: 'the event asked for a later sendAt',
  celebrity_feed: "written once to the actor's celebrity feed (read with the inbox)",
  muted: 'the user muted this type',
  live_delivery_off: 'the user turned live delivery off for this type',
  channel_off: 'the channel is off for this type or user',
  quiet_hours: "the user's quiet hours (released when they end)",
  rate_limited: "the user's rate limit (collapsed into a digest at the window's end)",
  preferences_unavailable: 'preferences unreadable (fail closed, retried)',
  no_consent: 'no push consent (default deny)',
  no_device: 'no registered device',
  no_email_address: 'no email address',
  unsubscribed: 'unsubscribed',
  already_delivered: 'already delivered (a duplicate)',
  offline: 'not connected (the inbox has it)',
  push_failed: 'the push failed (retried)',
  provider_throttled: 'the provider throttled (retried)',
  provider_rejected: 'the provider rejected it',
  invalid_endpoint: 'the device token is invalid (device removed)',
  erased_user: 'the recipient was erased',
  erased_principal: 'an erased user is its actor, audience or followee',
  max_receives: 'it failed its last receive and went to a dead-letter queue',
  escalation: 'an escalation: still unseen or unread after the type\'s delay',
  already_seen: 'escalation skipped: seen before its delay ran out',
  already_read: 'escalation skipped: read before its delay ran out',
  escalation_cancelled: 'escalation cancelled: archived, deleted, snoozed or retracted before its delay ran out',
  escalation_off: 'the user turned escalation off for this type',
  spend_limit: 'an SMS spend guard (texts per user per day, or per day in all) was reached',
};

export function describeDecision(record: AuditDecisionRecord): string {
  const reason = record.reason ? `: ${REASONS[record.reason] ?? record.reason}` : '';
  return `${record.decision}${reason}`;
}

export function formatWhy(query: WhyQuery, answer: WhyAnswer): string {
  const lines = [`tenant ${JSON.stringify(query.tenantId)}, user ${JSON.stringify(query.userId)}, event ${JSON.stringify(query.eventId)} (${answer.event})`];
  if (answer.status === 'erased') {
    lines.push(`the user was erased (${answer.erasedAt!.join(', ')}): their audit records are kept but can no longer be linked to them`);
  } else if (answer.status === 'unknown') {
    lines.push('the audit trail knows no such user (no pseudonym salt, no erasure record)');
  } else {
    lines.push(`pseudonym ${answer.user}${answer.erasedAt ? ` (an erasure was recorded at ${answer.erasedAt.join(', ')}; the user id was used again since)` : ''}`);
  }
  if (answer.decisions.length === 0) lines.push(answer.status === 'found' ? 'no audit record of this event for this user' : 'no event-wide audit record of this event');
  for (const record of answer.decisions) {
    const channel = record.channel ?? '-';
    lines.push(`${record.at}  ${record.stage.padEnd(8)} ${channel.padEnd(6)} ${describeDecision(record)}${record.user === null ? '  [whole event]' : ''}  (attempt ${record.attempt})`);
  }
  if (answer.erasedRecipientDecisions > 0) lines.push(`${answer.erasedRecipientDecisions} decision(s) of this event concern recipients erased before they were written (unlinkable)`);
  return lines.join('\n');
}
