/** Hostile input at the channels' boundaries: device registrations, unsubscribe tokens, the local SNS and SES stand-ins. */
import { describe, expect, it } from 'vitest';
import { deviceInputSchema } from '../../src/contract/channel-schemas.js';
import { unsubscribeToken, verifyUnsubscribeToken } from '../../src/core/channels/unsubscribe-token.js';
import { LocalSesV2 } from '../../src/local/ses/ses-v2.js';
import { LocalMobilePush } from '../../src/local/sns/mobile-push.js';

describe('POST /devices input', () => {
  it('rejects unknown platforms, odd or huge tokens, extra and prototype keys', () => {
    const token = 'a'.repeat(64);
    expect(deviceInputSchema.safeParse({ platform: 'fcm', token }).success).toBe(true);
    for (const input of [
      { platform: 'symbian', token },
      { platform: '__proto__', token },
      { platform: 'fcm', token: 'a'.repeat(100_000) },
      { platform: 'fcm', token: 'short' },
      { platform: 'fcm', token: `${token}<script>` },
      { platform: 'fcm', token: `${token}\u0000` },
      { platform: 'fcm', token: ['a'.repeat(64)] },
      { platform: 'fcm', token, admin: true },
      JSON.parse(`{"platform":"fcm","token":"${token}","__proto__":{"admin":true}}`) as unknown,
      JSON.parse(`{"platform":"fcm","token":"${token}","constructor":{"prototype":{"admin":true}}}`) as unknown,
      { platform: 'fcm', token, locale: '../../etc' },
      null,
      [],
    ]) {
      expect(deviceInputSchema.safeParse(input).success, JSON.stringify(input)?.slice(0, 80)).toBe(false);
    }
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });
});

describe('unsubscribe tokens, forged', () => {
  const secret = 'unsubscribe-key';
  const alice = unsubscribeToken({ tenantId: 'acme', userId: 'alice', type: '*' }, secret);

  it('another user payload under a valid signature, a re-signed payload without the key, and odd shapes verify to nothing', () => {
    const [, aliceSignature] = alice.split('.');
    const malloryPayload = Buffer.from(JSON.stringify({ v: 1, t: 'acme', u: 'mallory', type: '*' })).toString('base64url');
    expect(verifyUnsubscribeToken(`${malloryPayload}.${aliceSignature}`, secret)).toBeUndefined();
    expect(verifyUnsubscribeToken(unsubscribeToken({ tenantId: 'acme', userId: 'mallory', type: '*' }, 'guessed'), secret)).toBeUndefined();
    for (const odd of ['', '.', 'a.', '.b', 'a.b.c', `${alice}.x`, 'x'.repeat(10_000), `${alice.split('.')[0]}.${'A'.repeat(43)}`]) expect(verifyUnsubscribeToken(odd, secret)).toBeUndefined();
  });
});

describe('local SNS stand-in, malformed requests', () => {
  const appArn = 'arn:aws:sns:us-east-1:000000000000:app/APNS/demo';
  const form = (fields: Record<string, string>) => new URLSearchParams(fields);
  const status = (run: () => unknown): number => {
    try {
      return (run() as { status: number }).status;
    } catch (error) {
      return (error as { status?: number }).status ?? -1;
    }
  };

  it('answers 4xx, never throws a plain error, for missing fields, unknown actions, unknown endpoints and bad JSON messages', () => {
    const sns = new LocalMobilePush({ region: 'us-east-1', accountId: '000000000000' });
    const created = sns.handleAction('CreatePlatformEndpoint', form({ PlatformApplicationArn: appArn, Token: 't'.repeat(64) }));
    const endpointArn = /<EndpointArn>([^<]+)</.exec(String(created.body))![1]!;
    const publish = (message: string) => status(() => sns.handleAction('Publish', form({ TargetArn: endpointArn, MessageStructure: 'json', Message: message })));
    expect(status(() => sns.handleAction('CreatePlatformEndpoint', form({ Token: 'x' })))).toBe(400);
    expect(status(() => sns.handleAction('__proto__', form({})))).toBe(400);
    expect(status(() => sns.handleAction('Publish', form({ TargetArn: `${endpointArn}x`, Message: 'm' })))).toBe(404);
    for (const message of ['{', 'null', '[]', '"APNS"', '{"APNS":"{"}', '{"APNS":"null"}', '{"APNS":"5"}', '{"APNS":"[]"}', '{"__proto__":{"APNS":"{}"}}']) expect(publish(message), message).toBe(400);
    expect(sns.devices()[0]!.received).toEqual([]);
  });
});

describe('local SES stand-in, malformed requests', () => {
  it('answers 400 for missing, odd or prototype-polluting fields and records nothing', () => {
    const ses = new LocalSesV2();
    for (const input of [undefined, null, [], 'x', {}, { FromEmailAddress: 'a@b.c' }, JSON.parse('{"__proto__":{"Destination":{"ToAddresses":["x@y.z"]}},"FromEmailAddress":"a@b.c"}') as unknown, { FromEmailAddress: 'a@b.c', Destination: { ToAddresses: 'x@y.z' }, Content: { Simple: { Subject: { Data: 's' }, Body: { Text: { Data: 'b' } } } } }]) {
      expect(ses.send(input).status, JSON.stringify(input)).toBe(400);
    }
    expect(ses.mailbox()).toEqual([]);
  });
});
