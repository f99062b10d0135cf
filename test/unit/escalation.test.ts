/**
 * Escalation: the fire-time verdict over read marks and exceptions, the channel consumer's handling
 * of an escalation job (early, switched off, read state, quiet hours, trace), and the fan-out's
 * delayed message (SQS DelaySeconds, capped at 15 minutes).
 */
import type { SendMessageBatchCommandInput } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { SqsChannelJobQueue } from '../../src/adapters/sqs/sqs-channel-job-queue.js';
import { ChannelDelivery, type ChannelDeliveryDeps, type ChannelInput, type ChannelJob, type ChannelTypeInfo } from '../../src/core/channels/channel-delivery.js';
import { escalationDueAtMs, escalationVerdict, type EscalationStateReader } from '../../src/core/channels/escalation.js';
import { idLowerBoundAt } from '../../src/core/model/ids.js';
import { EMPTY_READ_STATE, exceptionAfter, type ReadState } from '../../src/core/model/read-state.js';
import type { DeliveryJob } from '../../src/core/jobs/delivery-job.js';
import type { EmailMessage } from '../../src/core/channels/ports.js';
import type { OneTimeSchedule } from '../../src/core/ports/scheduler.js';
import type { ItemRelease } from '../../src/core/jobs/item-release.js';
import type { TraceEntry } from '../../src/core/ports/trace.js';
import { DEFAULT_PREFERENCES, type Preferences } from '../../src/core/preferences/preferences.js';
import { fixedChannelState } from '../support/channel-fakes.js';

const NOW = Date.parse('2026-11-25T12:30:00.000Z');
const ARRIVED = NOW - 15 * 60_000;
/** A notification id stamped at `atMs` (the hash part fixed per n). */
const idAt = (atMs: number, n = 1) => `${idLowerBoundAt(atMs).slice(0, 10)}${'0'.repeat(14)}${String(n).padStart(2, '0')}`;
const ID = idAt(ARRIVED);

const state = (overrides: Partial<ReadState> = {}): ReadState => ({ ...EMPTY_READ_STATE, ...overrides });
const withException = (base: ReadState, change: Parameters<typeof exceptionAfter>[3]): ReadState => ({ ...base, exceptions: new Map([[ID, exceptionAfter(ID, base, { type: 'mention.created' }, change, 0)]]) });

describe('escalationVerdict', () => {
  it('due while unseen; seen or read by a mark or one by one skips it; archive, delete, snooze, retraction cancel it', () => {
    expect(escalationVerdict(ID, state(), false, 'unseen')).toBe('due');
    expect(escalationVerdict(ID, state({ seenMark: idAt(ARRIVED + 1), seenAt: '' }), false, 'unseen')).toBe('seen');
    expect(escalationVerdict(ID, state({ readMark: idAt(ARRIVED + 1), readAt: '', version: 1, readVersion: 1 }), false, 'unseen')).toBe('read');
    expect(escalationVerdict(ID, withException(state(), { kind: 'seen' }), false, 'unseen')).toBe('seen');
    expect(escalationVerdict(ID, withException(state(), { kind: 'read' }), false, 'unseen')).toBe('read');
    expect(escalationVerdict(ID, withException(state(), { kind: 'archive' }), false, 'unseen')).toBe('archived');
    expect(escalationVerdict(ID, withException(state(), { kind: 'delete' }), false, 'unseen')).toBe('deleted');
    expect(escalationVerdict(ID, withException(state(), { kind: 'snooze', untilMs: NOW + 60_000, comebackId: idAt(NOW + 60_000) }), false, 'unseen')).toBe('snoozed');
    expect(escalationVerdict(ID, state(), true, 'unseen')).toBe('retracted');
  });

  it('a read-all below the id (a device behind) does not cover it; marked unread after a read-all makes it due again', () => {
    expect(escalationVerdict(ID, state({ readMark: idAt(ARRIVED - 1), readAt: '', version: 1, readVersion: 1 }), false, 'unread')).toBe('due');
    const readAll = state({ readMark: idAt(ARRIVED + 1), readAt: '', version: 1, readVersion: 1 });
    expect(escalationVerdict(ID, withException(readAll, { kind: 'unread' }), false, 'unread')).toBe('due');
  });

  it('`unread` ignores seen: the bell opened still escalates until it is read', () => {
    expect(escalationVerdict(ID, state({ seenMark: idAt(ARRIVED + 1), seenAt: '' }), false, 'unread')).toBe('due');
    expect(escalationVerdict(ID, withException(state(), { kind: 'read' }), false, 'unread')).toBe('read');
  });

  it('is due at the latest arrival of the job plus the delay', () => {
    expect(escalationDueAtMs([idAt(ARRIVED, 1), idAt(ARRIVED + 5, 2)], 900)).toBe(ARRIVED + 5 + 900_000);
  });
});

const types: Record<string, ChannelTypeInfo> = {
  'mention.created': { digestible: false, channels: { push: true, email: false }, escalation: { channel: 'email', afterSeconds: 900, when: 'unseen' } },
  'comment.created': { digestible: true, channels: { email: true } },
};

function escalationJob(n: number, dueAtMs: number, userId = 'alice', type = 'mention.created'): ChannelInput {
  const job: ChannelJob = {
    v: 1,
    tenantId: 'acme',
    eventId: `e${n}`,
    priority: 'urgent',
    notification: { type, createdAt: '2026-11-25T12:15:00.000Z', actor: { id: 'bob' }, title: 'Bob mentioned you', body: 'hey', data: {} },
    target: { kind: 'recipients', recipients: [{ userId, notificationId: idAt(ARRIVED, n) }] },
    escalation: { dueAtMs, when: 'unseen' },
  };
  return { recordId: `r${n}`, job };
}

function harness(options: { states?: Record<string, ReadState>; retracted?: string[]; preferences?: Partial<Preferences>; reads?: number[]; failReads?: boolean } = {}) {
  const emails: EmailMessage[] = [];
  const scheduled: OneTimeSchedule[] = [];
  const traced: TraceEntry[] = [];
  const reads = options.reads ?? [];
  const escalationState: EscalationStateReader = {
    async escalationState(user, checks) {
      if (options.failReads) throw new Error('ProvisionedThroughputExceededException');
      reads.push(checks.length);
      return { state: options.states?.[user.userId] ?? EMPTY_READ_STATE, retracted: new Set(checks.map((check) => check.notificationId).filter((id) => options.retracted?.includes(id))) };
    },
  };
  const deps: ChannelDeliveryDeps = {
    channel: 'email',
    preferences: { getPreferences: async (_tenant, users) => new Map(users.map((user) => [user, { status: 'default', preferences: { ...DEFAULT_PREFERENCES, mutedTypes: [], liveDelivery: {}, ...options.preferences } }])) },
    state: fixedChannelState((user) => ({ devices: [], pushConsent: null, emailAddress: `${user.userId}@example.test`, emailUnsubscribed: [] })),
    dedup: { claim: async () => true, release: async () => undefined, claimSending: async () => 'claimed' as const, markSent: async () => undefined },
    rate: { admitMessage: async () => 'counted' as const },
    email: { send: async (message) => (emails.push(message), { status: 'sent', messageId: 'm' }), unsubscribeBaseUrl: 'http://localhost', unsubscribeSecret: 'k' },
    scheduler: { scheduleOnce: async (schedule) => (scheduled.push(schedule), 'created') },
    channelQueueArn: 'arn:aws:sqs:us-east-1:000000000000:EmailDelivery',
    signRelease: (release) => JSON.stringify(release),
    // A released hold reads the notification back from the recipient's inbox (here: always there, unexpired).
    items: { getItems: async (keys) => new Map(keys.map(({ id }) => [id, { id, type: 'mention.created', createdAt: '2026-11-25T12:15:00.000Z', actor: { id: 'bob' }, title: 'Bob mentioned you', body: 'hey', data: {}, expiresAt: NOW / 1000 + 86_400 }])) },
    typeInfo: (type) => types[type],
    clock: { nowMs: () => NOW },
    settings: { rateLimitPerWindow: 0, parallelism: 4 },
    onEvent: () => undefined,
    trace: { record: async (entries) => void traced.push(...entries) },
    escalationState,
  };
  return { delivery: new ChannelDelivery(deps), emails, scheduled, traced, reads };
}

const outcomes = (traced: TraceEntry[]) => traced.map((entry) => `${entry.userId}:${entry.outcome}`).sort();

describe('ChannelDelivery: escalation jobs', () => {
  it('due and unseen: one email, traced `escalated`; the marks and exceptions read once per user for all their escalations', async () => {
    const { delivery, emails, traced, reads } = harness();
    const report = await delivery.deliver([escalationJob(1, NOW), escalationJob(2, NOW)]);
    expect(report.messagesSent).toBe(2);
    expect(emails.map((email) => email.subject)).toEqual(['Bob mentioned you', 'Bob mentioned you']);
    expect(outcomes(traced)).toEqual(['alice:escalated', 'alice:escalated']);
    expect(reads).toEqual([2]);
  });

  it('seen, read or cancelled meanwhile: no email, each traced with its reason', async () => {
    const seen = state({ seenMark: idAt(ARRIVED + 1), seenAt: '' });
    const read = state({ readMark: idAt(ARRIVED + 1), readAt: '', version: 1, readVersion: 1 });
    const { delivery, emails, traced } = harness({ states: { bea: seen, cid: read }, retracted: [idAt(ARRIVED, 3)] });
    await delivery.deliver([escalationJob(1, NOW, 'bea'), escalationJob(2, NOW, 'cid'), escalationJob(3, NOW, 'dan')]);
    expect(emails).toEqual([]);
    expect(outcomes(traced)).toEqual(['bea:escalation_seen', 'cid:escalation_read', 'dan:escalation_cancelled']);
  });

  it('early (a delay past SQS\'s 15 minutes): re-enters the queue at its due time still an escalation, never a digest; nothing read', async () => {
    const dueAtMs = NOW + 3_600_000;
    const { delivery, emails, scheduled, reads, traced } = harness();
    await delivery.deliver([escalationJob(1, dueAtMs)]);
    expect(emails).toEqual([]);
    expect(reads).toEqual([]);
    expect(scheduled).toHaveLength(1);
    expect(scheduled[0]!.atMs).toBe(dueAtMs);
    // A reference (the schedule carries no content), still an escalation, come early: never a digest.
    const reentering = JSON.parse(scheduled[0]!.payload) as ItemRelease;
    expect(reentering).toMatchObject({ kind: 'item-release', userId: 'alice', notificationId: ID, escalation: { dueAtMs, when: 'unseen' }, early: true });
    expect(outcomes(traced)).toEqual(['alice:deferred']);
  });

  it('an early escalation released at its due time is checked then: sent while unseen, not joined to a digest', async () => {
    const { delivery, emails, reads, traced } = harness();
    const release: ItemRelease = { v: 1, kind: 'item-release', tenantId: 'acme', userId: 'alice', notificationId: ID, priority: 'urgent', eventId: 'e1', escalation: { dueAtMs: NOW, when: 'unseen' }, early: true };
    await delivery.deliver([], [{ recordId: 'r1', release }]);
    expect(reads).toEqual([1]);
    expect(emails.map((email) => email.subject)).toEqual(['Bob mentioned you']);
    expect(outcomes(traced)).toEqual(['alice:escalated']);
  });

  it('switched off: `escalation: false` for the type, or the email channel switched off for it; the default-off email does not stop it', async () => {
    const off = harness({ preferences: { channels: { 'mention.created': { escalation: false } } } });
    await off.delivery.deliver([escalationJob(1, NOW)]);
    const emailOff = harness({ preferences: { channels: { 'mention.created': { email: false } } } });
    await emailOff.delivery.deliver([escalationJob(1, NOW)]);
    expect(off.emails).toEqual([]);
    expect(outcomes(off.traced)).toEqual(['alice:escalation_off']);
    expect(emailOff.emails).toEqual([]);
    expect(outcomes(emailOff.traced)).toEqual(['alice:channel_off']);
  });

  it('muted type or quiet hours: a mute skips; quiet hours hold it as an escalation (checked again at release)', async () => {
    const muted = harness({ preferences: { mutedTypes: ['mention.created'] } });
    await muted.delivery.deliver([escalationJob(1, NOW)]);
    const quiet = harness({ preferences: { timeZone: 'UTC', quietHours: { start: '12:00', end: '13:00' } } });
    types['mention.created']!.urgentBypassesQuietHours = false;
    try {
      await quiet.delivery.deliver([escalationJob(1, NOW)]);
    } finally {
      delete types['mention.created']!.urgentBypassesQuietHours;
    }
    expect(muted.emails).toEqual([]);
    expect(outcomes(muted.traced)).toEqual(['alice:muted']);
    expect(quiet.emails).toEqual([]);
    expect(quiet.scheduled).toHaveLength(1);
    expect(quiet.scheduled[0]!.atMs).toBe(Date.parse('2026-11-25T13:00:00.000Z'));
    expect((JSON.parse(quiet.scheduled[0]!.payload) as ItemRelease).escalation).toEqual({ dueAtMs: NOW, when: 'unseen' });
    // Released at the end of quiet hours and seen meanwhile: checked again, skipped.
    const seen = harness({ states: { alice: state({ seenMark: idAt(ARRIVED + 1), seenAt: '' }) } });
    await seen.delivery.deliver([], [{ recordId: 'r9', release: JSON.parse(quiet.scheduled[0]!.payload) as ItemRelease }]);
    expect(seen.emails).toEqual([]);
    expect(outcomes(seen.traced)).toEqual(['alice:escalation_seen']);
  });

  it('the read state unreadable: fails closed (nothing sent, the record retried)', async () => {
    const { delivery, emails } = harness({ failReads: true });
    const report = await delivery.deliver([escalationJob(1, NOW)]);
    expect(emails).toEqual([]);
    expect([...report.failedRecordIds]).toEqual(['r1']);
  });

  it('a type without an escalation to this channel (a forged or stale job): skipped, never sent', async () => {
    const { delivery, emails, traced } = harness();
    await delivery.deliver([escalationJob(1, NOW, 'alice', 'comment.created')]);
    expect(emails).toEqual([]);
    expect(outcomes(traced)).toEqual(['alice:channel_off']);
  });
});

describe('SqsChannelJobQueue: the escalation message', () => {
  function capture() {
    const sent: SendMessageBatchCommandInput[] = [];
    const client = { send: async (command: { input: SendMessageBatchCommandInput }) => (sent.push(command.input), { Failed: [] }) };
    const inApp = { enqueue: async () => undefined };
    return { sent, client, inApp };
  }
  const job = (type: string, arrivedMs: number): DeliveryJob => ({ v: 1, tenantId: 'acme', eventId: 'e1', priority: 'urgent', notification: { type, createdAt: '', actor: { id: 'bob' }, title: 't', body: 'b', data: {} }, target: { kind: 'recipients', recipients: [{ userId: 'alice', notificationId: idAt(arrivedMs) }] } });

  it('puts the job on the escalation channel\'s queue marked with its due time, delayed until then (capped at 900 s)', async () => {
    const { sent, client, inApp } = capture();
    const queue = new SqsChannelJobQueue(inApp, client as never, { email: 'https://sqs/email' }, 'secret', (type) => types[type], { clock: { nowMs: () => NOW } });
    await queue.enqueue([job('mention.created', NOW - 1_000), job('comment.created', NOW)]);
    const entries = sent.flatMap((input) => input.Entries ?? []);
    const delayed = entries.filter((entry) => entry.DelaySeconds !== undefined);
    expect(entries).toHaveLength(3);
    expect(delayed).toHaveLength(1);
    expect(delayed[0]!.DelaySeconds).toBe(899);
    expect(JSON.parse(delayed[0]!.MessageBody!).escalation).toEqual({ dueAtMs: NOW - 1_000 + 900_000, when: 'unseen' });
    const long = capture();
    await new SqsChannelJobQueue(long.inApp, long.client as never, { email: 'https://sqs/email' }, 'secret', (type) => types[type], { clock: { nowMs: () => NOW }, escalationDelaySeconds: 7_200 }).enqueue([job('mention.created', NOW)]);
    expect(long.sent.flatMap((input) => input.Entries ?? []).find((entry) => entry.DelaySeconds !== undefined)?.DelaySeconds).toBe(900);
  });

  it('no escalation message without the channel\'s queue', async () => {
    const { sent, client, inApp } = capture();
    const queue = new SqsChannelJobQueue(inApp, client as never, { push: 'https://sqs/push' }, 'secret', (type) => types[type], { clock: { nowMs: () => NOW } });
    await queue.enqueue([job('mention.created', NOW)]);
    expect(sent.flatMap((input) => input.Entries ?? []).filter((entry) => entry.DelaySeconds !== undefined)).toEqual([]);
  });
});
