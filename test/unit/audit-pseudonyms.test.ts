/**
 * The audit trail's keyed hashes, its mapping of trace entries to decisions, the record schema as JSON
 * Schema, and `why` over records: a user is linkable with the tenant key AND their salt, and by
 * nothing else; without the salt only the erasure marker answers.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { AUDIT_RECORD_VERSION, auditRecordJsonSchema } from '../../src/contract/audit-record.js';
import { openSegment, parseAuditLine, sealAfter } from '../../src/core/audit/chain.js';
import { auditDecisionOf } from '../../src/core/audit/decisions.js';
import { erasureMarker, eventRef, newSalt, notificationRef, tenantKeyFromMaster, userKey, userRef } from '../../src/core/audit/pseudonyms.js';
import { WhyCollector, formatWhy } from '../../src/core/audit/why.js';
import type { TraceEntry, TraceOutcome, TraceStage } from '../../src/core/ports/trace.js';

const MASTER = Buffer.alloc(32, 3);
const ACME = tenantKeyFromMaster(MASTER, 'acme');

describe('Audit pseudonyms', () => {
  it('are deterministic per (tenant key, salt, id) and differ across tenants, salts and ids', () => {
    const salt = newSalt();
    const alice = userRef(userKey(ACME, salt, 'alice'));
    expect(userRef(userKey(ACME, salt, 'alice'))).toBe(alice);
    expect(new Set([alice, userRef(userKey(tenantKeyFromMaster(MASTER, 'other'), salt, 'alice')), userRef(userKey(ACME, newSalt(), 'alice')), userRef(userKey(ACME, salt, 'alicf'))]).size).toBe(4);
    expect(alice).toMatch(/^u1\.[A-Za-z0-9_-]{24}$/);
  });

  it('encode ids unambiguously: ids that only differ in where a separator falls never collide', () => {
    const key = tenantKeyFromMaster(MASTER, 'a"b');
    expect(key.equals(tenantKeyFromMaster(MASTER, 'a'))).toBe(false);
    expect(eventRef(ACME, 'x","y')).not.toBe(eventRef(ACME, 'x'));
    expect(eventRef(ACME, '\uD800')).not.toBe(eventRef(ACME, '\uD801'));
  });

  it('hash a recipient\'s notification with their salt: the id alone (derivable from the user) does not match it', () => {
    const salt = newSalt();
    const id = '01JNOTIFICATION0000000000A';
    expect(notificationRef(userKey(ACME, salt, 'alice'), id)).not.toBe(notificationRef(ACME, id));
  });

  it('mark an erasure without the salt, distinct from every pseudonym of the user', () => {
    const marker = erasureMarker(ACME, 'alice');
    expect(marker).toMatch(/^x1\./);
    expect(marker.slice(3)).not.toBe(userRef(userKey(ACME, newSalt(), 'alice')).slice(3));
  });
});

describe('Audit decisions of trace entries', () => {
  const entry = (stage: TraceStage, outcome: TraceOutcome, userId: string | null = 'alice'): TraceEntry => ({ tenantId: 'acme', eventId: 'e', stage, outcome, atMs: 1, ...(userId ? { userId } : {}) });

  it.each<[TraceStage, TraceOutcome, string | null, object]>([
    ['intake', 'accepted', null, { stage: 'intake', channel: null, decision: 'accepted', reason: null }],
    ['intake', 'deduplicated', null, { stage: 'intake', decision: 'deduplicated', reason: 'duplicate_event' }],
    ['fanout', 'inbox_written', 'alice', { stage: 'fanout', channel: 'inbox', decision: 'written' }],
    ['fanout', 'celebrity_feed', null, { stage: 'fanout', channel: 'inbox', decision: 'written', reason: 'celebrity_feed' }],
    ['fanout', 'erased', 'alice', { stage: 'fanout', decision: 'dropped', reason: 'erased_user' }],
    ['fanout', 'erased', null, { stage: 'fanout', channel: null, decision: 'dropped', reason: 'erased_principal' }],
    ['gate', 'quiet_hours', 'alice', { stage: 'live', channel: 'live', decision: 'held', reason: 'quiet_hours' }],
    ['gate', 'rate_limited', 'alice', { stage: 'live', decision: 'held', reason: 'rate_limited' }],
    ['delivery', 'delivered_live', 'alice', { stage: 'live', decision: 'pushed' }],
    ['delivery', 'deduplicated', 'alice', { stage: 'live', decision: 'deduplicated', reason: 'already_delivered' }],
    ['release', 'released', 'alice', { stage: 'release', channel: 'live', decision: 'released' }],
    ['push', 'no_consent', 'alice', { stage: 'push', channel: 'push', decision: 'denied', reason: 'no_consent' }],
    ['email', 'sent', 'alice', { stage: 'email', channel: 'email', decision: 'sent' }],
    ['sms', 'rate_limited', 'alice', { stage: 'sms', channel: 'sms', decision: 'held', reason: 'rate_limited' }],
    ['dlq', 'dead_lettered', null, { stage: 'dlq', channel: null, decision: 'dead_lettered', reason: 'max_receives' }],
  ])('%s / %s (user %s)', (stage, outcome, userId, expected) => {
    expect(auditDecisionOf(entry(stage, outcome, userId), 2)).toMatchObject({ ...expected, attempt: 2 });
  });

  it('has a decision for every outcome each stage emits', () => {
    const emitted: Record<TraceStage, TraceOutcome[]> = {
      intake: ['accepted', 'invalid', 'deferred', 'deduplicated'],
      fanout: ['inbox_written', 'muted', 'celebrity_feed', 'erased'],
      gate: ['admitted', 'quiet_hours', 'rate_limited', 'preferences_unavailable', 'muted', 'live_delivery_off'],
      delivery: ['delivered_live', 'deduplicated', 'offline', 'push_failed'],
      release: ['released', 'dropped', 'quiet_hours', 'rate_limited', 'preferences_unavailable', 'muted', 'live_delivery_off'],
      dlq: ['dead_lettered'],
      push: ['sent', 'quiet_hours', 'rate_limited', 'preferences_unavailable', 'muted', 'channel_off', 'no_consent', 'no_device', 'deduplicated', 'send_failed', 'invalid_endpoint'],
      email: ['sent', 'quiet_hours', 'rate_limited', 'channel_off', 'no_email_address', 'unsubscribed', 'deduplicated', 'send_failed', 'provider_rejected'],
      sms: [],
    };
    const missing = Object.entries(emitted).flatMap(([stage, outcomes]) => outcomes.filter((outcome) => !auditDecisionOf(entry(stage as TraceStage, outcome), 1)).map((outcome) => `${stage}/${outcome}`));
    expect(missing).toEqual([]);
  });
});

describe('The audit record JSON Schema', () => {
  it('compiles (2020-12) and accepts sealed lines, rejects a line with clear text where a hash belongs', () => {
    const ajv = new Ajv2020({ strict: true, allErrors: true, validateFormats: false });
    const validate = ajv.compile(auditRecordJsonSchema());
    const opened = openSegment('local', '01JAAAAAAAAAAAAAAAAAAAAAAA', { at: '2026-01-01T00:00:00.000Z', cause: 'start', after: null });
    const { lines } = sealAfter(opened.head, [
      { kind: 'decision', at: '2026-01-01T00:00:01.000Z', tenant: 'acme', event: eventRef(ACME, 'e'), user: null, notification: null, stage: 'intake', channel: null, decision: 'accepted', reason: null, attempt: 1 },
      { kind: 'erasure', at: '2026-01-01T00:00:02.000Z', tenant: 'acme', marker: erasureMarker(ACME, 'erin') },
    ]);
    for (const line of [opened.line, ...lines]) expect(validate(JSON.parse(line)), JSON.stringify(validate.errors)).toBe(true);
    const clear = { ...JSON.parse(lines[0]!), user: 'alice' };
    expect(validate(clear)).toBe(false);
    expect(auditRecordJsonSchema()).toMatchObject({ $id: 'urn:notifications:schemas:audit' });
    expect(AUDIT_RECORD_VERSION).toBe(1);
  });
});

describe('audit why (from records)', () => {
  const salt = newSalt();
  const alice = userRef(userKey(ACME, salt, 'alice'));
  const opened = openSegment('local', '01JAAAAAAAAAAAAAAAAAAAAAAA', { at: '2026-01-01T00:00:00.000Z', cause: 'start', after: null });
  const base = { kind: 'decision' as const, tenant: 'acme', event: eventRef(ACME, 'evt-1'), notification: null, attempt: 1 };
  const { lines } = sealAfter(opened.head, [
    { ...base, at: '2026-01-01T00:00:03.000Z', user: alice, stage: 'live', channel: 'live', decision: 'held', reason: 'quiet_hours' },
    { ...base, at: '2026-01-01T00:00:01.000Z', user: null, stage: 'intake', channel: null, decision: 'accepted', reason: null },
    { ...base, at: '2026-01-01T00:00:02.000Z', user: userRef(userKey(ACME, newSalt(), 'bob')), stage: 'fanout', channel: 'inbox', decision: 'written', reason: null },
    { ...base, at: '2026-01-01T00:00:02.500Z', user: 'erased', stage: 'fanout', channel: 'inbox', decision: 'dropped', reason: 'erased_user' },
    { kind: 'erasure', at: '2026-01-02T00:00:00.000Z', tenant: 'acme', marker: erasureMarker(ACME, 'erin') },
  ]);
  const parsed = lines.map((line) => {
    const result = parseAuditLine(line);
    if (!result.ok) throw new Error(result.reason);
    return result.record;
  });

  it('finds the user\'s and the event-wide decisions, oldest first, and nobody else\'s', () => {
    const collector = new WhyCollector({ tenantId: 'acme', userId: 'alice', eventId: 'evt-1' }, ACME, salt);
    parsed.forEach((record) => collector.add(record));
    const answer = collector.answer();
    expect(answer).toMatchObject({ status: 'found', user: alice, erasedRecipientDecisions: 1 });
    expect(answer.decisions.map((record) => `${record.stage}:${record.decision}`)).toEqual(['intake:accepted', 'live:held']);
    expect(formatWhy({ tenantId: 'acme', userId: 'alice', eventId: 'evt-1' }, answer)).toContain("held: the user's quiet hours");
  });

  it('answers "erased" for a user without a salt whose marker is in the trail, "unknown" otherwise', () => {
    const erin = new WhyCollector({ tenantId: 'acme', userId: 'erin', eventId: 'evt-1' }, ACME, undefined);
    const nobody = new WhyCollector({ tenantId: 'acme', userId: 'nobody', eventId: 'evt-1' }, ACME, undefined);
    parsed.forEach((record) => [erin, nobody].forEach((collector) => collector.add(record)));
    expect(erin.answer()).toMatchObject({ status: 'erased', erasedAt: ['2026-01-02T00:00:00.000Z'] });
    expect(formatWhy({ tenantId: 'acme', userId: 'erin', eventId: 'evt-1' }, erin.answer())).toContain('the user was erased (2026-01-02T00:00:00.000Z)');
    expect(nobody.answer().status).toBe('unknown');
  });
});
