/**
 * Inbound texts (two-way SMS): the keywords (opt-out, opt-in, help; what begins a message, what must
 * be alone), the core's acts on in-memory ports (STOP, START off the service's list then ours, a
 * refused re-opt-in, a late older word, the answers with self-managed opt-outs), and the handler's
 * refusals of what the service never publishes: another topic, another event source, a huge message,
 * no JSON, `__proto__` and deep payloads, a number that is not E.164. The End User Messaging opt-out
 * list adapter's mapping of the service's answers (aws-sdk-client-mock: the 30-day refusal and
 * throttling the local stand-in answers too, checked here without a server).
 */
import { DeleteOptedOutNumberCommand, PinpointSMSVoiceV2Client, ResourceNotFoundException, ThrottlingException, ValidationException } from '@aws-sdk/client-pinpoint-sms-voice-v2';
import type { SNSEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it } from 'vitest';
import { EndUserMessagingOptOutList } from '../../src/adapters/sms/end-user-messaging-opt-out-list.js';
import type { SmsOptOutList, SmsOptOutState, SmsOutcome, SmsServiceOptOuts } from '../../src/core/channels/ports.js';
import { inboundKeywordOf, SMS_KEYWORD_ANSWERS_DEFAULT } from '../../src/core/channels/sms.js';
import { actOnInboundText, type SmsInboundDeps } from '../../src/core/channels/sms-inbound.js';
import { createSmsInboundHandler, MAX_INBOUND_MESSAGE_CHARACTERS } from '../../src/handlers/sms-inbound-handler.js';

const PHONE = '+14155550101';
const TOPIC = 'arn:aws:sns:eu-west-1:111122223333:Notifications-SmsInboundTopic';
const T0 = Date.parse('2026-11-26T09:00:00.000Z');

/** The opt-out list as the DynamoDB adapter keeps it: per number the latest word, an opt-out winning a tie. */
class MemoryOptOuts implements SmsOptOutList {
  readonly states = new Map<string, Required<SmsOptOutState>>();
  async isOptedOut(phoneNumber: string) {
    return this.states.get(phoneNumber)?.optedOut ?? false;
  }
  async stateOf(phoneNumber: string) {
    return this.states.get(phoneNumber);
  }
  async optOut(phoneNumber: string, atMs: number) {
    const current = this.states.get(phoneNumber);
    if (current && current.changedAtMs > atMs) return 'stale' as const;
    this.states.set(phoneNumber, { optedOut: true, changedAtMs: atMs });
    return 'recorded' as const;
  }
  async optIn(phoneNumber: string, atMs: number) {
    const current = this.states.get(phoneNumber);
    if (current && current.changedAtMs >= atMs) return 'stale' as const;
    this.states.set(phoneNumber, { optedOut: false, changedAtMs: atMs });
    return 'recorded' as const;
  }
}

function harness(options: { service?: Awaited<ReturnType<SmsServiceOptOuts['optIn']>>; selfManaged?: boolean; answer?: SmsOutcome; guard?: 'admitted' | 'already_answered' | 'global_limit' } = {}) {
  const optOuts = new MemoryOptOuts();
  const serviceCalls: string[] = [];
  const answers: { to: string; text: string }[] = [];
  const released: string[] = [];
  const logs: { level: string; message: string; fields: Record<string, unknown> }[] = [];
  const deps: SmsInboundDeps = {
    optOuts,
    serviceOptOuts: { optIn: async (phoneNumber) => (serviceCalls.push(phoneNumber), options.service ?? { status: 'not_listed' }) },
    ...(options.selfManaged
      ? {
          answers: {
            provider: { send: async (message) => (answers.push(message), options.answer ?? { status: 'sent', messageId: 'm' }) },
            guard: { admitAnswer: async () => options.guard ?? 'admitted', releaseAnswer: async (_phone, keyword) => void released.push(keyword) },
            texts: SMS_KEYWORD_ANSWERS_DEFAULT,
            perDay: 100,
          },
        }
      : {}),
    clock: { nowMs: () => T0 },
    onEvent: (level, message, fields) => void logs.push({ level, message, fields }),
  };
  const text = (body: string, atMs = T0) => actOnInboundText(deps, { from: PHONE, body, atMs, messageId: `m-${atMs}` });
  return { deps, optOuts, serviceCalls, answers, released, logs, text };
}

describe('inbound keywords', () => {
  it('opt-out and help keywords begin a message; opt-in keywords must be the whole message', () => {
    const cases: [string, string][] = [
      ['STOP', 'stop'], [' stop. ', 'stop'], ['Stop please', 'stop'], ['stopall', 'stop'], ['Arrêt', 'stop'], ['TD', 'stop'], ['remove', 'stop'], ['OPT-OUT', 'stop'],
      ['START', 'start'], ['unstop', 'start'], ['Yes!', 'start'], ['  yes  ', 'start'],
      ['Yes, stop texting me', 'other'], ['start now', 'other'], ['please stop texting', 'other'], ['STARTED', 'other'], ['', 'other'], ['   ', 'other'], ['__proto__', 'other'],
      ['HELP', 'help'], ['help me', 'help'], ['info', 'help'],
      [`START${' '.repeat(200)}x`, 'other'], [`STOP${'x'.repeat(100_000)}`, 'other'], [`STOP ${'x'.repeat(100_000)}`, 'stop'],
    ];
    expect(cases.map(([body]) => [body.slice(0, 24), inboundKeywordOf(body)])).toEqual(cases.map(([body, keyword]) => [body.slice(0, 24), keyword]));
  });
});

describe('actOnInboundText', () => {
  it('STOP opts the number out; a repeat changes nothing; the service answers (default)', async () => {
    const { text, optOuts, serviceCalls } = harness();
    expect(await text('STOP')).toEqual({ keyword: 'stop', change: 'opted_out', answer: 'service' });
    expect(await text('stop', T0 + 1)).toMatchObject({ change: 'opted_out' });
    expect(await optOuts.isOptedOut(PHONE)).toBe(true);
    expect(serviceCalls).toEqual([]);
  });

  it('START after STOP: off the service\'s list first, then off ours', async () => {
    const { text, optOuts, serviceCalls } = harness({ service: { status: 'opted_in' } });
    await text('STOP');
    expect(await text('START', T0 + 1_000)).toEqual({ keyword: 'start', change: 'opted_in', answer: 'service' });
    expect(serviceCalls).toEqual([PHONE]);
    expect(await optOuts.isOptedOut(PHONE)).toBe(false);
  });

  it('the service refuses the re-opt-in (once every 30 days): the number stays opted out, with a WARN', async () => {
    const { text, optOuts, logs } = harness({ service: { status: 'refused', reason: 'ValidationException (PHONE_NUMBER_CANNOT_BE_OPTED_IN)' } });
    await text('STOP');
    expect(await text('YES', T0 + 1_000)).toEqual({ keyword: 'start', change: 'refused', answer: 'none' });
    expect(await optOuts.isOptedOut(PHONE)).toBe(true);
    expect(logs.filter((log) => log.level === 'warn').map((log) => log.message).join()).toContain('30 days');
  });

  it('a START older than the recorded STOP (delivered late) changes nothing and touches no service list; the same instant: STOP wins', async () => {
    const { text, optOuts, serviceCalls } = harness();
    await text('STOP', T0 + 5_000);
    expect(await text('START', T0)).toMatchObject({ change: 'stale' });
    expect(await text('START', T0 + 5_000)).toMatchObject({ change: 'stale' });
    expect(serviceCalls).toEqual([]);
    expect(await optOuts.isOptedOut(PHONE)).toBe(true);
    // And the other way round: a STOP older than a recorded START loses.
    expect(await text('START', T0 + 9_000)).toMatchObject({ change: 'opted_in' });
    expect(await text('STOP', T0 + 7_000)).toMatchObject({ change: 'stale' });
    expect(await optOuts.isOptedOut(PHONE)).toBe(false);
  });

  it('anything else changes nothing and answers nothing; the number and the body are never logged', async () => {
    const { text, optOuts, logs, answers } = harness({ selfManaged: true });
    expect(await text('see you at 5')).toEqual({ keyword: 'other', change: 'none', answer: 'none' });
    await text('STOP please, this is +14155550101');
    expect(optOuts.states.size).toBe(1);
    expect(answers).toHaveLength(1);
    expect(JSON.stringify(logs)).not.toContain(PHONE);
    expect(JSON.stringify(logs)).not.toContain('please');
  });

  it('self-managed opt-outs: HELP, STOP and START answered from here; at most once a day (the guard); at the global limit not at all', async () => {
    const managed = harness({ selfManaged: true });
    expect((await managed.text('HELP')).answer).toBe('sent');
    expect((await managed.text('STOP', T0 + 1)).answer).toBe('sent');
    expect((await managed.text('START', T0 + 2)).answer).toBe('sent');
    expect(managed.answers.map((answer) => answer.text)).toEqual([SMS_KEYWORD_ANSWERS_DEFAULT.help, SMS_KEYWORD_ANSWERS_DEFAULT.stop, SMS_KEYWORD_ANSWERS_DEFAULT.start]);
    expect(managed.answers.every((answer) => answer.to === PHONE)).toBe(true);
    expect((await harness({ selfManaged: true, guard: 'already_answered' }).text('HELP')).answer).toBe('already_answered');
    const limited = harness({ selfManaged: true, guard: 'global_limit' });
    expect((await limited.text('HELP')).answer).toBe('global_limit');
    expect(limited.answers).toEqual([]);
  });

  it('self-managed: a throttled answer gives its claim back and fails the record (retried); a refused one is dropped with a WARN', async () => {
    const throttled = harness({ selfManaged: true, answer: { status: 'throttled', reason: 'ThrottlingException' } });
    await expect(throttled.text('HELP')).rejects.toThrow(/throttled/);
    expect(throttled.released).toEqual(['help']);
    const refused = harness({ selfManaged: true, answer: { status: 'rejected', reason: 'ValidationException' } });
    expect((await refused.text('HELP')).answer).toBe('failed');
    expect(refused.logs.some((log) => log.level === 'warn')).toBe(true);
  });
});

function snsEvent(message: string, overrides: { topicArn?: string; eventSource?: string; timestamp?: string } = {}): SNSEvent {
  return {
    Records: [
      {
        EventSource: overrides.eventSource ?? 'aws:sns',
        EventVersion: '1.0',
        EventSubscriptionArn: `${TOPIC}:sub`,
        Sns: { Type: 'Notification', MessageId: 'msg-1', TopicArn: overrides.topicArn ?? TOPIC, Subject: '', Message: message, Timestamp: overrides.timestamp ?? new Date(T0).toISOString(), SignatureVersion: '1', Signature: '', SigningCertUrl: '', UnsubscribeUrl: '', MessageAttributes: {} },
      },
    ],
  };
}

const inbound = (body: unknown, from: unknown = PHONE) => JSON.stringify({ originationNumber: from, destinationNumber: '+15555550100', messageKeyword: 'KEYWORD', messageBody: body, inboundMessageId: 'in-1' });

describe('sms-inbound handler: what the service never publishes is dropped', () => {
  const handle = async (event: SNSEvent) => {
    const fixture = harness();
    await createSmsInboundHandler({ ...fixture.deps, inboundTopicArn: TOPIC })(event);
    return { optedOut: await fixture.optOuts.isOptedOut(PHONE), warnings: fixture.logs.filter((log) => log.level === 'warn').map((log) => log.message), logs: JSON.stringify(fixture.logs) };
  };

  it('acts on the inbound topic\'s STOP, at the instant SNS published it', async () => {
    const fixture = harness();
    await createSmsInboundHandler({ ...fixture.deps, inboundTopicArn: TOPIC })(snsEvent(inbound('STOP'), { timestamp: '2026-11-26T08:00:00.000Z' }));
    expect(fixture.optOuts.states.get(PHONE)).toEqual({ optedOut: true, changedAtMs: Date.parse('2026-11-26T08:00:00.000Z') });
  });

  it('a forged topic, another event source, a huge message, no JSON, an odd shape', async () => {
    const cases = {
      otherTopic: snsEvent(inbound('STOP'), { topicArn: 'arn:aws:sns:eu-west-1:999999999999:attacker' }),
      otherSource: snsEvent(inbound('STOP'), { eventSource: 'aws:sqs' }),
      huge: snsEvent(inbound(`STOP ${'x'.repeat(MAX_INBOUND_MESSAGE_CHARACTERS)}`)),
      hugeBody: snsEvent(inbound(`STOP ${'x'.repeat(5_000)}`)),
      notJson: snsEvent('STOP'),
      notE164: snsEvent(inbound('STOP', '0155 5550')),
      noNumber: snsEvent(JSON.stringify({ messageBody: 'STOP' })),
      bodyNotText: snsEvent(inbound({ text: 'STOP' })),
      array: snsEvent('[1,2,3]'),
      deep: snsEvent(`${'['.repeat(5_000)}${']'.repeat(5_000)}`.slice(0, MAX_INBOUND_MESSAGE_CHARACTERS)),
    };
    for (const [name, event] of Object.entries(cases)) {
      const result = await handle(event);
      expect({ name, optedOut: result.optedOut, warned: result.warnings.length }).toEqual({ name, optedOut: false, warned: 1 });
      expect(result.logs).not.toContain(PHONE);
    }
  });

  it('`__proto__` and extra keys in the message are ignored; the fields it reads still act', async () => {
    const message = `{"__proto__":{"originationNumber":"+19999999999"},"constructor":{"prototype":{"x":1}},"originationNumber":"${PHONE}","messageBody":"STOP","extra":${JSON.stringify('y'.repeat(1_000))}}`;
    const result = await handle(snsEvent(message));
    expect(result.optedOut).toBe(true);
    expect(({} as Record<string, unknown>).originationNumber).toBeUndefined();
  });

  it('a store failure fails the invocation (SNS retries it): an opt-out is never lost', async () => {
    const fixture = harness();
    fixture.optOuts.optOut = async () => Promise.reject(new Error('ProvisionedThroughputExceededException'));
    await expect(createSmsInboundHandler({ ...fixture.deps, inboundTopicArn: TOPIC })(snsEvent(inbound('STOP')))).rejects.toThrow(/Provisioned/);
  });
});

describe('EndUserMessagingOptOutList (DeleteOptedOutNumber)', () => {
  const optIn = (answer: () => unknown) => {
    const mock = mockClient(PinpointSMSVoiceV2Client);
    mock.on(DeleteOptedOutNumberCommand).callsFake(answer);
    return { mock, outcome: new EndUserMessagingOptOutList(new PinpointSMSVoiceV2Client({ region: 'us-east-1' }), 'Default').optIn(PHONE) };
  };
  const meta = { $metadata: { httpStatusCode: 400 } };

  it('removes the number from the named list', async () => {
    const { mock, outcome } = optIn(() => ({ OptedOutNumber: PHONE }));
    expect(await outcome).toEqual({ status: 'opted_in' });
    expect(mock.commandCalls(DeleteOptedOutNumberCommand)[0]!.args[0].input).toEqual({ OptOutListName: 'Default', OptedOutNumber: PHONE });
  });

  it('not on the list: not_listed; the 30-day rule: refused; throttling: thrown (retried)', async () => {
    expect(await optIn(() => Promise.reject(new ResourceNotFoundException({ message: 'not found', ResourceType: 'opted-out-number', ResourceId: PHONE, ...meta }))).outcome).toEqual({ status: 'not_listed' });
    const refused = await optIn(() => Promise.reject(new ValidationException({ message: 'once every 30 days', Reason: 'PHONE_NUMBER_CANNOT_BE_OPTED_IN', ...meta }))).outcome;
    expect(refused).toMatchObject({ status: 'refused' });
    expect(refused.status === 'refused' && refused.reason).toContain('PHONE_NUMBER_CANNOT_BE_OPTED_IN');
    await expect(optIn(() => Promise.reject(new ThrottlingException({ message: 'Rate exceeded', ...meta }))).outcome).rejects.toThrow(/Rate exceeded/);
  });
});
