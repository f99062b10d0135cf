/**
 * The SMS channel's rules in ChannelDelivery (opt-in, opt-out list, the service's opted-out answer,
 * spend guards, throttling) with in-memory ports, the text of a message, the inbound keywords, and
 * the End User Messaging SMS adapter's mapping of the service's errors (aws-sdk-client-mock: error
 * paths the local stand-in answers too, checked here without a server).
 */
import { ConflictException, PinpointSMSVoiceV2Client, SendTextMessageCommand, ThrottlingException, ValidationException } from '@aws-sdk/client-pinpoint-sms-voice-v2';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it } from 'vitest';
import { EndUserMessagingSmsProvider } from '../../src/adapters/sms/end-user-messaging-sms-provider.js';
import { ChannelDelivery, type ChannelInput, type ChannelTypeInfo } from '../../src/core/channels/channel-delivery.js';
import { smsTextOf } from '../../src/core/channels/channel-messages.js';
import type { SmsOutcome } from '../../src/core/channels/ports.js';
import { inboundKeywordOf, type SmsOptIn } from '../../src/core/channels/sms.js';
import type { DeliveryJob } from '../../src/core/jobs/delivery-job.js';
import type { TraceEntry } from '../../src/core/ports/trace.js';
import { DEFAULT_PREFERENCES } from '../../src/core/preferences/preferences.js';
import { fixedChannelState } from '../support/channel-fakes.js';

const NOW = Date.parse('2026-11-26T09:00:00.000Z');
const PHONE = '+14155550101';
const types: Record<string, ChannelTypeInfo> = { 'mention.created': { digestible: false, channels: { sms: true } } };

function aJob(n: number, userId = 'alice'): ChannelInput {
  const job: DeliveryJob = { v: 1, tenantId: 'acme', eventId: `e${n}`, priority: 'urgent', notification: { type: 'mention.created', createdAt: '', actor: { id: 'bob' }, title: 'Bob mentioned you', body: 'hey', data: {} }, target: { kind: 'recipients', recipients: [{ userId, notificationId: `01KAZ0000000000000000000${String(n).padStart(2, '0')}` }] } };
  return { recordId: `r${n}`, job };
}

function harness(options: { optIn?: SmsOptIn | null; optedOut?: boolean; answer?: SmsOutcome; spend?: 'admitted' | 'user_limit' | 'global_limit' | 'fails'; rateLimitPerWindow?: number } = {}) {
  const counted: string[] = [];
  const texts: { to: string; text: string }[] = [];
  const optOuts: string[] = [];
  const traced: TraceEntry[] = [];
  const warnings: string[] = [];
  const delivery = new ChannelDelivery({
    channel: 'sms',
    preferences: { getPreferences: async (_tenant, users) => new Map(users.map((user) => [user, { status: 'default', preferences: { ...DEFAULT_PREFERENCES, mutedTypes: [], liveDelivery: {} } }])) },
    state: fixedChannelState(() => ({ devices: [], pushConsent: null, emailAddress: null, emailUnsubscribed: [], sms: options.optIn === undefined ? { phoneNumber: PHONE, optedInAt: '', version: '1' } : options.optIn })),
    dedup: { claim: async () => true, release: async () => undefined, claimSending: async () => 'claimed' as const, markSent: async () => undefined },
    rate: { admitMessage: async (_user, _channel, _window, key) => (counted.push(key), 'counted' as const) },
    sms: {
      provider: { send: async (message) => (texts.push(message), options.answer ?? { status: 'sent', messageId: 'm' }) },
      optOuts: { isOptedOut: async () => options.optedOut ?? false, stateOf: async () => undefined, optIn: async () => 'recorded' as const, optOut: async (phoneNumber) => (optOuts.push(phoneNumber), 'recorded' as const) },
      spend: { admit: async () => (options.spend === 'fails' ? Promise.reject(new Error('ProvisionedThroughputExceededException')) : (options.spend ?? 'admitted')) },
      limits: { perUserPerDay: 10, perDay: 1_000 },
    },
    scheduler: { scheduleOnce: async () => 'created' },
    channelQueueArn: 'arn:aws:sqs:us-east-1:000000000000:SmsDelivery',
    signRelease: (release) => JSON.stringify(release),
    typeInfo: (type) => types[type],
    clock: { nowMs: () => NOW },
    settings: { rateLimitPerWindow: options.rateLimitPerWindow ?? 0, parallelism: 1 },
    onEvent: (level, message) => void (level === 'warn' && warnings.push(message)),
    trace: { record: async (entries) => void traced.push(...entries) },
  });
  return { delivery, texts, optOuts, traced, warnings, counted, outcomes: () => traced.map((entry) => entry.outcome) };
}

describe('ChannelDelivery: SMS', () => {
  it('texts the opted-in number once, traced `sent`', async () => {
    const { delivery, texts, outcomes } = harness();
    const report = await delivery.deliver([aJob(1)]);
    expect(texts).toEqual([{ to: PHONE, text: 'Bob mentioned you: hey' }]);
    expect(report.messagesSent).toBe(1);
    expect(outcomes()).toEqual(['sent']);
  });

  it('no opt-in: nothing sent (default deny, `no_consent`)', async () => {
    const { delivery, texts, outcomes } = harness({ optIn: null });
    await delivery.deliver([aJob(1)]);
    expect(texts).toEqual([]);
    expect(outcomes()).toEqual(['no_consent']);
  });

  it('a number on the opt-out list (STOP): nothing sent, `unsubscribed`', async () => {
    const { delivery, texts, outcomes } = harness({ optedOut: true });
    await delivery.deliver([aJob(1)]);
    expect(texts).toEqual([]);
    expect(outcomes()).toEqual(['unsubscribed']);
  });

  it('a number on the opt-out list uses none of the rate window: its texts are refused before they are counted', async () => {
    const out = harness({ optedOut: true, rateLimitPerWindow: 5 });
    await out.delivery.deliver([aJob(1), aJob(2)]);
    expect(out.counted).toEqual([]);
    expect(out.outcomes()).toEqual(['unsubscribed', 'unsubscribed']);

    const opted = harness({ rateLimitPerWindow: 5 });
    await opted.delivery.deliver([aJob(1)]);
    expect(opted.counted).toHaveLength(1);
  });

  it('the service answers opted out: recorded on the list, never retried', async () => {
    const { delivery, optOuts, outcomes, warnings } = harness({ answer: { status: 'opted_out', reason: 'ConflictException: DESTINATION_PHONE_NUMBER_OPTED_OUT' } });
    const report = await delivery.deliver([aJob(1)]);
    expect(report.failedRecordIds.size).toBe(0);
    expect(optOuts).toEqual([PHONE]);
    expect(outcomes()).toEqual(['unsubscribed']);
    expect(warnings.join(' ')).toContain('opt-out list');
  });

  it('a spend guard reached: dropped with a WARN (`spend_limit`); a guard that cannot be read fails closed (retried, nothing sent)', async () => {
    for (const spend of ['user_limit', 'global_limit'] as const) {
      const { delivery, texts, outcomes, warnings } = harness({ spend });
      const report = await delivery.deliver([aJob(1)]);
      expect(texts).toEqual([]);
      expect(report.failedRecordIds.size).toBe(0);
      expect(outcomes()).toEqual(['spend_limit']);
      expect(warnings).toHaveLength(1);
    }
    const failing = harness({ spend: 'fails' });
    const report = await failing.delivery.deliver([aJob(1)]);
    expect(failing.texts).toEqual([]);
    expect([...report.failedRecordIds]).toEqual(['r1']);
  });

  it('throttled: the record is retried; rejected: dropped for good', async () => {
    const throttled = harness({ answer: { status: 'throttled', reason: 'ThrottlingException' } });
    expect([...(await throttled.delivery.deliver([aJob(1)])).failedRecordIds]).toEqual(['r1']);
    const rejected = harness({ answer: { status: 'rejected', reason: 'ValidationException' } });
    expect((await rejected.delivery.deliver([aJob(1)])).failedRecordIds.size).toBe(0);
    expect(rejected.outcomes()).toEqual(['provider_rejected']);
  });
});

describe('SMS text and keywords', () => {
  it('one segment: 160 GSM characters, 70 otherwise; a sensitive type says only that something arrived; several are a count', () => {
    const item = (title: string, body: string, sensitive = false) => ({ notificationId: 'n', type: 't', title, body, sensitive });
    expect(smsTextOf([item('Bob', 'x'.repeat(300))])).toHaveLength(160);
    expect(smsTextOf([item('Zoë 🙂', 'x'.repeat(300))])).toHaveLength(70);
    expect(smsTextOf([item('Code', '123456', true)])).toBe('You have a new notification. Open the app to see it.');
    expect(smsTextOf([item('A', 'a'), item('B', 'b')])).toBe('2 new notifications: A · B');
  });

  it('STOP and its synonyms opt out, HELP is help, anything else is ignored', () => {
    expect(['STOP', ' stop ', 'Unsubscribe', 'CANCEL', 'stopall'].map(inboundKeywordOf)).toEqual(['stop', 'stop', 'stop', 'stop', 'stop']);
    expect(inboundKeywordOf('help')).toBe('help');
    expect(inboundKeywordOf('please stop texting')).toBe('other');
  });
});

describe('EndUserMessagingSmsProvider', () => {
  const sent = (answer: () => unknown) => {
    const mock = mockClient(PinpointSMSVoiceV2Client);
    mock.on(SendTextMessageCommand).callsFake(answer);
    const provider = new EndUserMessagingSmsProvider(new PinpointSMSVoiceV2Client({ region: 'us-east-1' }), { originationIdentity: 'arn:aws:sms-voice:us-east-1:111122223333:phone-number/phone-1', configurationSetName: 'notify' });
    return { mock, outcome: provider.send({ to: PHONE, text: 'hi' }) };
  };

  it('sends one TRANSACTIONAL SendTextMessage from the origination identity', async () => {
    const { mock, outcome } = sent(() => ({ MessageId: 'm-1' }));
    expect(await outcome).toEqual({ status: 'sent', messageId: 'm-1' });
    expect(mock.commandCalls(SendTextMessageCommand)[0]!.args[0].input).toEqual({ DestinationPhoneNumber: PHONE, OriginationIdentity: 'arn:aws:sms-voice:us-east-1:111122223333:phone-number/phone-1', MessageBody: 'hi', MessageType: 'TRANSACTIONAL', ConfigurationSetName: 'notify' });
    mock.restore();
  });

  it('maps the opted-out conflict to opted_out, throttling to throttled, validation to rejected', async () => {
    const meta = { $metadata: { httpStatusCode: 400 } };
    const cases: [() => never, SmsOutcome['status']][] = [
      [() => { throw Object.assign(new ConflictException({ message: 'opted out', Reason: 'DESTINATION_PHONE_NUMBER_OPTED_OUT', ResourceType: 'opt-out-list', ResourceId: 'Default', ...meta }), meta); }, 'opted_out'],
      [() => { throw Object.assign(new ThrottlingException({ message: 'Rate exceeded', ...meta }), meta); }, 'throttled'],
      [() => { throw Object.assign(new ValidationException({ message: 'bad number', Reason: 'INVALID_PARAMETER', ...meta }), meta); }, 'rejected'],
    ];
    for (const [answer, status] of cases) {
      const { mock, outcome } = sent(answer);
      expect((await outcome).status).toBe(status);
      mock.restore();
    }
  });
});
