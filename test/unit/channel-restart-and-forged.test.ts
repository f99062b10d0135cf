/** Channel consumer: a job redelivered after a kill -9 (before or after the send), and forged jobs on the channel queue. */
import { fixedChannelState } from '../support/channel-fakes.js';
import { Logger } from '@aws-lambda-powertools/logger';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';
import { ChannelDelivery, type ChannelDeliveryDeps, type ChannelInput } from '../../src/core/channels/channel-delivery.js';
import type { DeliveryJob } from '../../src/core/jobs/delivery-job.js';
import { signedDeliveryJobBody } from '../../src/core/jobs/delivery-job-signature.js';
import type { ChannelDedupStore, ChannelSendKey, PushOutcome, PushProvider } from '../../src/core/channels/ports.js';
import { DEFAULT_PREFERENCES } from '../../src/core/preferences/preferences.js';
import { createChannelHandler } from '../../src/handlers/channel-handler.js';

const NOW = Date.parse('2026-11-25T12:00:30.000Z');
const NOTIFICATION_ID = '01KAZ000000000000000000001';
const job: DeliveryJob = { v: 1, tenantId: 'acme', eventId: 'e1', priority: 'urgent', notification: { type: 'mention.created', createdAt: '2026-11-25T12:00:00.000Z', actor: { id: 'bob' }, title: 'Bob mentioned you', body: 'b', data: {} }, target: { kind: 'recipients', recipients: [{ userId: 'alice', notificationId: NOTIFICATION_ID }] } };
const input: ChannelInput = { recordId: 'r1', job };

/** The dedup table outlives the killed process: one store shared by the run before and after the restart. */
function durableDedup(): ChannelDedupStore {
  const claims = new Set<string>();
  const keyOf = (key: ChannelSendKey) => `${key.userId}/${key.notificationId}/${key.deviceId ?? ''}`;
  return { claim: async (key) => (claims.has(keyOf(key)) ? false : (claims.add(keyOf(key)), true)), release: async (key) => void claims.delete(keyOf(key)), claimSending: async () => 'claimed' as const, markSent: async () => undefined };
}

function consumer(dedup: ChannelDedupStore, publish: PushProvider['publish']): ChannelDelivery {
  const device = (id: string, endpointArn: string) => ({ id, platform: 'apns' as const, token: 't', endpointArn, createdAt: '', updatedAt: '' });
  const deps: ChannelDeliveryDeps = {
    channel: 'push',
    preferences: { getPreferences: async (_tenant, users) => new Map(users.map((user) => [user, { status: 'default', preferences: { ...DEFAULT_PREFERENCES, mutedTypes: [], liveDelivery: {} } }])) },
    state: fixedChannelState(() => ({ devices: [device('d_aaaaaaaaaaaaaaaaaaaaaa', 'arn:e1'), device('d_bbbbbbbbbbbbbbbbbbbbbb', 'arn:e2')], pushConsent: { grantedAt: '2026-11-01T00:00:00Z', version: '1' }, emailAddress: null, emailUnsubscribed: [] })),
    dedup,
    rate: { admitMessage: async () => 'counted' },
    push: { deleteEndpoint: async () => undefined, publish },
    scheduler: { scheduleOnce: async () => 'created' },
    channelQueueArn: 'arn:aws:sqs:us-east-1:000000000000:PushDelivery',
    signRelease: (release) => JSON.stringify(release),
    typeInfo: () => ({ digestible: false, channels: { push: true } }),
    clock: { nowMs: () => NOW },
    settings: { rateLimitPerWindow: 0, parallelism: 4 },
    onEvent: () => undefined,
  };
  return new ChannelDelivery(deps);
}

/** Lets the killed run reach the point where it hangs, then abandons it (the process is gone; nothing after runs). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 10));
const sent: PushOutcome = { status: 'sent', messageId: 'm' };

describe('channel consumer killed and restarted', () => {
  it('killed after the sends, before the ack: the redelivered job sends nothing more', async () => {
    const dedup = durableDedup();
    const delivered: string[] = [];
    // Both sends complete; the process dies before the batch answers SQS, so the record comes back.
    await consumer(dedup, async (arn) => (delivered.push(arn), sent)).deliver([input]);
    const retry = await consumer(dedup, async (arn) => (delivered.push(arn), sent)).deliver([input]);
    expect(delivered).toEqual(['arn:e1', 'arn:e2']);
    expect(retry).toMatchObject({ messagesSent: 0, duplicatesSkipped: 2 });
    expect(retry.failedRecordIds.size).toBe(0);
  });

  it('killed between the dedup write and the send: that device is not sent to on redelivery (documented at-most-once), the others once', async () => {
    const dedup = durableDedup();
    const delivered: string[] = [];
    void consumer(dedup, async (arn) => {
      if (arn === 'arn:e2') return new Promise<never>(() => undefined); // claim for e2 written, the process dies in the send
      delivered.push(arn);
      return sent;
    }).deliver([input]);
    await settle();
    const retry = await consumer(dedup, async (arn) => (delivered.push(arn), sent)).deliver([input]);
    expect(delivered).toEqual(['arn:e1']);
    expect(retry).toMatchObject({ messagesSent: 0, duplicatesSkipped: 2 });
  });
});

describe('dedup store failing part-way through a digest', () => {
  it('gives back the claims it made, so the retry sends every notification (none lost to a half-claimed digest)', async () => {
    const dedup = durableDedup();
    let failNext = true;
    const flaky: ChannelDedupStore = { claim: async (key) => (key.notificationId.endsWith('2') && failNext ? ((failNext = false), Promise.reject(new Error('ProvisionedThroughputExceeded'))) : dedup.claim(key)), release: dedup.release, claimSending: dedup.claimSending, markSent: dedup.markSent };
    const second: DeliveryJob = { ...job, eventId: 'e2', target: { kind: 'recipients', recipients: [{ userId: 'alice', notificationId: NOTIFICATION_ID.replace(/1$/, '2') }] } };
    const digest: ChannelInput[] = [{ recordId: 'r1', job: { ...job, held: true } }, { recordId: 'r2', job: { ...second, held: true } }];
    const counts: number[] = [];
    const publish: PushProvider['publish'] = async (_arn, _platform, message) => (counts.push(Number(message.data.count ?? 1)), sent);
    const first = await consumer(flaky, publish).deliver(digest);
    const retry = await consumer(flaky, publish).deliver(digest);
    expect([...first.failedRecordIds].sort()).toEqual(['r1', 'r2']);
    expect(counts).toEqual([2, 2]);
    expect(retry).toMatchObject({ messagesSent: 2, duplicatesSkipped: 0 });
  });
});

describe('forged jobs on a channel queue', () => {
  const secret = 'job-key';
  const record = (messageId: string, body: string): SQSRecord => ({ messageId, receiptHandle: 'h', body, attributes: { ApproximateReceiveCount: '1', SentTimestamp: '0', SenderId: 's', ApproximateFirstReceiveTimestamp: '0' }, messageAttributes: {}, md5OfBody: '', eventSource: 'aws:sqs', eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:PushDelivery', awsRegion: 'us-east-1' });

  it('unsigned, tampered or signed with another key: dropped with a WARN, never handed to the sender, never retried', async () => {
    const signed = JSON.parse(signedDeliveryJobBody(job, secret)) as Record<string, unknown>;
    const tampered = JSON.stringify({ ...signed, target: { kind: 'recipients', recipients: [{ userId: 'mallory', notificationId: NOTIFICATION_ID }] } });
    const deliver = vi.fn(async (inputs: readonly ChannelInput[]) => ({ failedRecordIds: new Set<string>(), messagesSent: inputs.length, duplicatesSkipped: 0, held: 0, skipped: {}, devicesRemoved: 0 }));
    const logger = new Logger({ logLevel: 'SILENT' });
    const warn = vi.spyOn(logger, 'warn');
    const handler = createChannelHandler({ delivery: { deliver }, channel: 'push', deliveryJobSecret: secret, logger });
    const event: SQSEvent = { Records: [record('unsigned', JSON.stringify(job)), record('tampered', tampered), record('other-key', signedDeliveryJobBody(job, 'not-the-key')), record('valid', signedDeliveryJobBody(job, secret))] };
    const answer = await handler(event);
    expect(deliver).toHaveBeenCalledTimes(1);
    expect(deliver.mock.calls[0]![0].map((each) => each.recordId)).toEqual(['valid']);
    expect(warn.mock.calls.filter(([message]) => message === 'forged push job dropped')).toHaveLength(3);
    expect(answer.batchItemFailures).toEqual([]);
  });

  it('a malformed body fails the record (the queue moves it to its DLQ) and nothing is sent', async () => {
    const deliver = vi.fn(async (_inputs: readonly ChannelInput[]) => ({ failedRecordIds: new Set<string>(), messagesSent: 0, duplicatesSkipped: 0, held: 0, skipped: {}, devicesRemoved: 0 }));
    const handler = createChannelHandler({ delivery: { deliver }, channel: 'email', deliveryJobSecret: secret, logger: new Logger({ logLevel: 'SILENT' }) });
    const deep = '['.repeat(5_000) + ']'.repeat(5_000);
    const answer = await handler({ Records: [record('not-json', '{'), record('deep', deep), record('proto', '{"__proto__":{"held":true},"v":1}')] });
    expect(deliver.mock.calls[0]![0]).toEqual([]);
    expect(answer.batchItemFailures.map((failure) => failure.itemIdentifier).sort()).toEqual(['deep', 'not-json', 'proto']);
  });
});
