/** ChannelDelivery with in-memory ports: fail closed, dedup per device, sensitive texts, rate-limit holds, consent. */
import { fixedChannelState } from '../support/channel-fakes.js';
import { describe, expect, it } from 'vitest';
import { ChannelDelivery, type ChannelDeliveryDeps, type ChannelInput, type ChannelTypeInfo } from '../../src/core/channels/channel-delivery.js';
import { pushMessageOf } from '../../src/core/channels/channel-messages.js';
import { unsubscribeToken, verifyUnsubscribeToken } from '../../src/core/channels/unsubscribe-token.js';
import type { DeliveryJob } from '../../src/core/jobs/delivery-job.js';
import type { ChannelSendKey, ChannelState, PushMessage } from '../../src/core/channels/ports.js';
import type { OneTimeSchedule } from '../../src/core/ports/scheduler.js';
import { DEFAULT_PREFERENCES } from '../../src/core/preferences/preferences.js';

const NOW = Date.parse('2026-11-25T12:00:30.000Z');
const ID = (n: number) => `01KAZ0000000000000000000${String(n).padStart(2, '0')}`;
const types: Record<string, ChannelTypeInfo> = {
  'mention.created': { digestible: false, channels: { push: true } },
  'secret.created': { digestible: false, channels: { push: true }, sensitive: true },
};

function aJob(n: number, type = 'mention.created', userId = 'alice'): ChannelInput {
  const job: DeliveryJob = { v: 1, tenantId: 'acme', eventId: `e${n}`, priority: 'urgent', notification: { type, createdAt: '2026-11-25T12:00:00.000Z', actor: { id: 'bob' }, title: 'Bob mentioned you', body: 'the content', data: {} }, target: { kind: 'recipients', recipients: [{ userId, notificationId: ID(n) }] } };
  return { recordId: `r${n}`, job };
}

function harness(overrides: Partial<ChannelDeliveryDeps> = {}, state: Partial<ChannelState> = {}) {
  const claims = new Set<string>();
  const published: { endpointArn: string; message: PushMessage }[] = [];
  const scheduled: OneTimeSchedule[] = [];
  const windows = new Map<string, Set<string>>();
  const keyOf = (key: ChannelSendKey) => `${key.userId}/${key.notificationId}/${key.deviceId ?? ''}`;
  const deps: ChannelDeliveryDeps = {
    channel: 'push',
    preferences: { getPreferences: async (_tenant, users) => new Map(users.map((user) => [user, { status: 'default', preferences: { ...DEFAULT_PREFERENCES, mutedTypes: [], liveDelivery: {} } }])) },
    state: fixedChannelState(() => ({ devices: [{ id: 'd_aaaaaaaaaaaaaaaaaaaaaa', platform: 'apns', token: 't1', endpointArn: 'arn:e1', createdAt: '', updatedAt: '' }, { id: 'd_bbbbbbbbbbbbbbbbbbbbbb', platform: 'fcm', token: 't2', endpointArn: 'arn:e2', createdAt: '', updatedAt: '' }], pushConsent: { grantedAt: '2026-11-01T00:00:00Z', version: '1' }, emailAddress: null, emailUnsubscribed: [], ...state })),
    dedup: {
      claim: async (key) => (claims.has(keyOf(key)) ? false : (claims.add(keyOf(key)), true)),
      release: async (key) => void claims.delete(keyOf(key)),
      claimSending: async () => 'claimed',
      markSent: async () => undefined,
    },
    // The ledger's rule in memory: a message counts once per window, up to the limit.
    rate: {
      admitMessage: async (user, _channel, windowStartMs, messageKey, limit) => {
        const counted = windows.get(`${user.userId}/${windowStartMs}`) ?? new Set<string>();
        windows.set(`${user.userId}/${windowStartMs}`, counted);
        if (counted.has(messageKey)) return 'already_counted';
        if (counted.size >= limit) return 'over_limit';
        counted.add(messageKey);
        return 'counted';
      },
    },
    push: { deleteEndpoint: async () => undefined, publish: async (endpointArn, _platform, message) => (published.push({ endpointArn, message }), { status: 'sent', messageId: 'm' }) },
    scheduler: { scheduleOnce: async (schedule) => (scheduled.push(schedule), 'created') },
    channelQueueArn: 'arn:aws:sqs:us-east-1:000000000000:PushDelivery',
    signRelease: (release) => JSON.stringify(release),
    typeInfo: (type) => types[type],
    clock: { nowMs: () => NOW },
    settings: { rateLimitPerWindow: 0, parallelism: 4 },
    onEvent: () => undefined,
    ...overrides,
  };
  return { delivery: new ChannelDelivery(deps), published, scheduled, claims, windows };
}

describe('ChannelDelivery (push)', () => {
  it('sends once per device; a redelivered job sends nothing', async () => {
    const { delivery, published } = harness();
    const first = await delivery.deliver([aJob(1)]);
    const again = await delivery.deliver([aJob(1)]);
    expect(published.map((push) => push.endpointArn)).toEqual(['arn:e1', 'arn:e2']);
    expect(first.messagesSent).toBe(2);
    expect(again).toMatchObject({ messagesSent: 0, duplicatesSkipped: 2 });
  });

  it('fails closed when the dedup store cannot be read: nothing sent, the record retried', async () => {
    const { delivery, published } = harness({ dedup: { claim: async () => Promise.reject(new Error('ProvisionedThroughputExceeded')), release: async () => undefined, claimSending: async () => 'claimed' as const, markSent: async () => undefined } });
    const report = await delivery.deliver([aJob(1)]);
    expect(published).toEqual([]);
    expect([...report.failedRecordIds]).toEqual(['r1']);
  });

  it('fails closed when preferences are unreadable', async () => {
    const { delivery, published } = harness({ preferences: { getPreferences: async () => new Map([['alice', { status: 'unreadable', reason: 'corrupt' }]]) } });
    const report = await delivery.deliver([aJob(1)]);
    expect(published).toEqual([]);
    expect([...report.failedRecordIds]).toEqual(['r1']);
  });

  it('no consent: no push (default-deny)', async () => {
    const { delivery, published } = harness({}, { pushConsent: null });
    const report = await delivery.deliver([aJob(1)]);
    expect(published).toEqual([]);
    expect(report.skipped).toEqual({ no_consent: 1 });
  });

  it('a sensitive type carries a generic text and the notification id only', async () => {
    const { delivery, published } = harness();
    await delivery.deliver([aJob(1, 'secret.created')]);
    expect(published[0]!.message).toEqual({ title: 'New notification', body: 'Open the app to see it.', data: { notificationId: ID(1), type: 'secret.created' }, collapseKey: ID(1) });
  });

  it('a throttled send gives its claim back and fails the record; the retry sends it', async () => {
    let throttle = true;
    const sent: string[] = [];
    const { delivery } = harness({ push: { deleteEndpoint: async () => undefined, publish: async (arn) => (throttle && arn === 'arn:e2' ? { status: 'throttled', reason: '429' } : (sent.push(arn), { status: 'sent', messageId: 'm' })) } });
    const first = await delivery.deliver([aJob(1)]);
    throttle = false;
    await delivery.deliver([aJob(1)]);
    expect([...first.failedRecordIds]).toEqual(['r1']);
    expect(sent).toEqual(['arn:e1', 'arn:e2']);
  });

  it('over the rate limit, the rest are held until the window ends (one schedule each, re-entering the channel queue)', async () => {
    const { delivery, published, scheduled } = harness({ settings: { rateLimitPerWindow: 1, rateLimitWindowMs: 60_000, parallelism: 4 } });
    await delivery.deliver([aJob(1), aJob(2), aJob(3)]);
    expect(published).toHaveLength(2);
    expect(scheduled.map((schedule) => schedule.atMs)).toEqual([Date.parse('2026-11-25T12:01:00.000Z'), Date.parse('2026-11-25T12:01:00.000Z')]);
    // A reference to the recipient's notification, never its content: read back when it fires.
    expect(scheduled.every((schedule) => schedule.targetArn.endsWith(':PushDelivery') && (JSON.parse(schedule.payload) as { kind?: string }).kind === 'item-release' && !schedule.payload.includes('the content'))).toBe(true);
  });

  it('a record retried after one device was throttled counts its message once: the next message of the window still goes out', async () => {
    // Prepare: a limit of 2; the second device throttles the first attempt.
    let throttle = true;
    const sent: string[] = [];
    const { delivery, scheduled, windows } = harness({
      settings: { rateLimitPerWindow: 2, rateLimitWindowMs: 60_000, parallelism: 4 },
      push: { deleteEndpoint: async () => undefined, publish: async (arn) => (throttle && arn === 'arn:e2' ? { status: 'throttled', reason: '429' } : (sent.push(arn), { status: 'sent', messageId: 'm' })) },
    });

    // Act
    const first = await delivery.deliver([aJob(1)]);
    throttle = false;
    await delivery.deliver([aJob(1)]);
    await delivery.deliver([aJob(2)]);

    // Assess
    expect([...first.failedRecordIds]).toEqual(['r1']);
    expect(sent).toEqual(['arn:e1', 'arn:e2', 'arn:e1', 'arn:e2']);
    expect(scheduled).toEqual([]);
    expect([...windows.values()].map((counted) => counted.size)).toEqual([2]);
  });

  it('held jobs released together become one digest push', () => {
    const message = pushMessageOf([1, 2, 3].map((n) => ({ notificationId: ID(n), type: 'mention.created', title: `t${n}`, body: 'b', sensitive: false })));
    expect(message).toMatchObject({ title: '3 new notifications', body: 't1 · t2 · t3', data: { count: '3', oldestId: ID(1) } });
  });
});

describe('unsubscribe tokens', () => {
  it('verify with the key, and not when altered or signed with another key', () => {
    const token = unsubscribeToken({ tenantId: 'acme', userId: 'auth0|64f1c2', type: 'comment.created' }, 'k1');
    expect(verifyUnsubscribeToken(token, 'k1')).toEqual({ tenantId: 'acme', userId: 'auth0|64f1c2', type: 'comment.created' });
    expect(verifyUnsubscribeToken(token, 'k2')).toBeUndefined();
    expect(verifyUnsubscribeToken(`${token}x`, 'k1')).toBeUndefined();
    expect(verifyUnsubscribeToken('a.b.c', 'k1')).toBeUndefined();
  });
});
