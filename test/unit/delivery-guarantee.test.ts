/** ChannelDelivery per delivery guarantee: at-least-once claims `sending`, marks `sent`, retries a claim held by a live attempt. */
import { describe, expect, it } from 'vitest';
import { ChannelDelivery, type ChannelInput, type ChannelTypeInfo } from '../../src/core/channels/channel-delivery.js';
import type { ChannelDedupStore, ChannelSendKey, EmailMessage, SendingClaim } from '../../src/core/channels/ports.js';
import type { DeliveryJob } from '../../src/core/jobs/delivery-job.js';
import { DEFAULT_PREFERENCES } from '../../src/core/preferences/preferences.js';
import { fixedChannelState } from '../support/channel-fakes.js';

const NOW = Date.parse('2026-11-26T09:00:00.000Z');
const types: Record<string, ChannelTypeInfo> = {
  'security.alert': { digestible: false, channels: { email: true }, deliveryGuarantee: 'at-least-once' },
  'comment.created': { digestible: false, channels: { email: true } },
};

function aJob(n: number, type: string): ChannelInput {
  const job: DeliveryJob = { v: 1, tenantId: 'acme', eventId: `e${n}`, priority: 'urgent', notification: { type, createdAt: '', actor: { id: 'sec' }, title: 'New sign-in', body: 'b', data: {} }, target: { kind: 'recipients', recipients: [{ userId: 'alice', notificationId: `01KAZ0000000000000000000${String(n).padStart(2, '0')}` }] } };
  return { recordId: `r${n}`, job };
}

function harness(sending: SendingClaim = 'claimed', markSentFails = false) {
  const calls: string[] = [];
  const emails: EmailMessage[] = [];
  const warnings: string[] = [];
  const at = (key: ChannelSendKey) => key.notificationId.slice(-2);
  const dedup: ChannelDedupStore = {
    claim: async (key) => (calls.push(`claim ${at(key)}`), true),
    release: async (key) => void calls.push(`release ${at(key)}`),
    claimSending: async (key, staleAfterMs) => (calls.push(`claimSending ${at(key)} ${staleAfterMs}`), sending),
    markSent: async (key) => (calls.push(`markSent ${at(key)}`), markSentFails ? Promise.reject(new Error('throttled')) : undefined),
  };
  const delivery = new ChannelDelivery({
    channel: 'email',
    preferences: { getPreferences: async (_tenant, users) => new Map(users.map((user) => [user, { status: 'default', preferences: { ...DEFAULT_PREFERENCES, mutedTypes: [], liveDelivery: {} } }])) },
    state: fixedChannelState(() => ({ devices: [], pushConsent: null, emailAddress: 'alice@example.test', emailUnsubscribed: [] })),
    dedup,
    rate: { admitMessage: async () => 'counted' as const },
    email: { send: async (message) => (emails.push(message), { status: 'sent', messageId: 'm' }), unsubscribeBaseUrl: 'http://localhost', unsubscribeSecret: 'k' },
    scheduler: { scheduleOnce: async () => 'created' },
    channelQueueArn: 'arn:aws:sqs:us-east-1:000000000000:EmailDelivery',
    signRelease: (release) => JSON.stringify(release),
    typeInfo: (type) => types[type],
    clock: { nowMs: () => NOW },
    settings: { rateLimitPerWindow: 0, parallelism: 1, sendingTimeoutMs: 45_000 },
    onEvent: (level, message) => void (level === 'warn' && warnings.push(message)),
  });
  return { delivery, calls, emails, warnings };
}

describe('delivery guarantee per type', () => {
  it('at-least-once: claims `sending` with the configured timeout, sends, then marks `sent`; at-most-once: one plain claim', async () => {
    const { delivery, calls, emails } = harness();
    await delivery.deliver([aJob(1, 'security.alert'), aJob(2, 'comment.created')]);
    expect(emails).toHaveLength(2);
    expect(calls).toEqual(['claimSending 01 45000', 'markSent 01', 'claim 02']);
  });

  it('a claim another attempt holds (`sending`, not stale): nothing sent, the record retried with a WARN', async () => {
    const { delivery, emails, warnings } = harness('sending');
    const report = await delivery.deliver([aJob(1, 'security.alert')]);
    expect(emails).toEqual([]);
    expect([...report.failedRecordIds]).toEqual(['r1']);
    expect(report.duplicatesSkipped).toBe(0);
    expect(warnings.join('\n')).toMatch(/held by an earlier attempt/);
  });

  it('already `sent`: a duplicate, nothing sent, the record done', async () => {
    const { delivery, emails } = harness('sent');
    const report = await delivery.deliver([aJob(1, 'security.alert')]);
    expect(emails).toEqual([]);
    expect(report).toMatchObject({ duplicatesSkipped: 1, failedRecordIds: new Set() });
  });

  it('sent but `sent` could not be recorded: the record still succeeds (a retry would send it twice), a WARN says so', async () => {
    const { delivery, emails, warnings } = harness('claimed', true);
    const report = await delivery.deliver([aJob(1, 'security.alert')]);
    expect(emails).toHaveLength(1);
    expect(report.failedRecordIds.size).toBe(0);
    expect(warnings.join('\n')).toMatch(/could not be marked sent/);
  });
});
