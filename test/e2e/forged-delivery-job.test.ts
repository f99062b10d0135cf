/**
 * Delivery trusts only jobs the fan-out signed: an insider who can send to the delivery queue (here
 * with the runtime's own SigV4 credentials) cannot push a forged notification to an open socket.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetQueueAttributesCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedDeliveryJobBody } from '../../src/core/jobs/delivery-job-signature.js';
import { LOCAL_REGION } from '../../src/local/embedded-dynamo.js';
import { startLocalRuntime, type LocalRuntime } from '../../src/local/runtime.js';
import { localSettingsFromEnv } from '../../src/local/settings.js';
import { loadLocalSqsCredentials } from '../../src/local/sqs/index.js';
import { aRecipientsJob, aRenderedNotification } from '../support/delivery-fixtures.js';
import { aMention } from '../support/events.js';
import { call } from '../support/http.js';
import { pollUntil } from '../support/poll-until.js';
import { TestSocket } from '../support/ws-client.js';

let runtime: LocalRuntime;
let dataDir: string;
let sqs: SQSClient;
const target = { tenantId: 'acme', userId: 'forge-target' };

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'notifications-forged-job-'));
  runtime = await startLocalRuntime({ ...localSettingsFromEnv({}), port: 0, wsPort: 0, dataDir });
  sqs = new SQSClient({ endpoint: runtime.endpoints.http, region: LOCAL_REGION, credentials: loadLocalSqsCredentials(join(dataDir, 'queues')), maxAttempts: 1 });
});

afterAll(async () => {
  sqs?.destroy();
  await runtime?.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function messagesIn(queueUrl: string): Promise<number> {
  const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }));
  return Number(Attributes?.ApproximateNumberOfMessages ?? 0) + Number(Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0);
}

describe('a forged delivery job', () => {
  it('sent with the runtime SQS credentials (unsigned, badly signed or signed with another key) is dropped: nothing pushed, nothing left to retry', async () => {
    // Prepare
    const socket = await TestSocket.open(runtime.endpoints.ws, await runtime.secrets.issueToken(target));
    const forged = (title: string) => aRecipientsJob({ recipients: [target], notification: aRenderedNotification({ title, body: 'reset your password at evil.example' }) });
    const unsigned = JSON.stringify(forged('unsigned'));
    const otherKey = signedDeliveryJobBody(forged('other key'), 'a-guessed-secret');
    const tampered = JSON.stringify({ ...(JSON.parse(signedDeliveryJobBody(forged('tampered'), 'a-guessed-secret')) as object), sig: 'A'.repeat(43) });

    // Act
    for (const body of [unsigned, otherKey, tampered]) {
      for (const queueUrl of [runtime.queues.urgent.url, runtime.queues.info.url]) await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
    }
    await pollUntil(async () => ((await messagesIn(runtime.queues.urgent.url)) + (await messagesIn(runtime.queues.info.url)) === 0 ? true : undefined), { attempts: 200, intervalMs: 50 }, 'forged jobs consumed');
    // A real event to the same socket afterwards: proves the socket is live and the forged ones were not pushed before it.
    const mention = aMention({ recipients: [target.userId] });
    const put = await call(runtime.endpoints.http, 'POST', '/', {
      headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': 'AWSEvents.PutEvents' },
      body: JSON.stringify({ Entries: [{ EventBusName: runtime.endpoints.eventBusName, Source: 'test.forged', DetailType: 'mention.created', Detail: JSON.stringify(mention) }] }),
    });
    await socket.waitFor('notification');
    await socket.close();
    // The real job's message is deleted just after its push: let that batch settle (the channel consumers share the loop).
    await pollUntil(async () => ((await messagesIn(runtime.queues.urgent.url)) + (await messagesIn(runtime.queues.info.url)) === 0 ? true : undefined), { attempts: 100, intervalMs: 20 }, 'real job settled');

    // Assess
    expect(put.status).toBe(200);
    expect(socket.ofType('notification').map((message) => message.notification.title)).not.toContain('unsigned');
    expect(socket.messages.filter((message) => message.type === 'notification' || message.type === 'digest' || message.type === 'notification_ref')).toHaveLength(1);
    expect(await messagesIn(runtime.queues.urgent.url)).toBe(0);
    expect(await messagesIn(runtime.queues.info.url)).toBe(0);
    expect(await messagesIn(runtime.queues.urgent.deadLetterQueue!.url)).toBe(0);
    expect(await messagesIn(runtime.queues.info.deadLetterQueue!.url)).toBe(0);
  });
});
