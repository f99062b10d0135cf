/**
 * End-to-end against a LocalStack deployment (`npm run deploy:localstack`, then
 * `npm run test:localstack`). Publishes with the real EventBridge SDK, reads REST with tokens signed
 * by the local signing key (whose JWKS this suite serves to the deployed authorizer), and invokes
 * schedule targets directly (LocalStack's Scheduler accepts schedules but never fires them).
 *
 * Skips entirely, saying why, when LocalStack is not reachable, when the stack outputs are missing
 * or when the stack was not deployed in `jwt` mode; skips the WebSocket part when the deployment has
 * no WebSocket API (LocalStack's free plan has no API Gateway v2).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { localSettingsFromEnv } from '../../src/local/settings.js';
import { loadLocalSecrets, type LocalSecrets } from '../../src/local/signing-key.js';
import { resourceNameOf } from '../../src/notifications/index.js';
import { LOCALSTACK_OUTPUTS_FILE, jwksPort, localstackEndpoint, localstackRestUrl, probeLocalStack, readStackOutputs } from './environment.js';

const endpoint = localstackEndpoint();
const probe = await probeLocalStack(endpoint);
const outputs = probe.reachable ? await readStackOutputs() : undefined;

function skipReason(): string | undefined {
  if (!probe.reachable) return `LocalStack is not reachable at ${endpoint} (${probe.reason}): start it (LOCALSTACK_AUTH_TOKEN required) or set LOCALSTACK_ENDPOINT`;
  if (!outputs) return `no stack outputs in ${LOCALSTACK_OUTPUTS_FILE}: run \`npm run deploy:localstack\` first`;
  if (outputs.AuthMode !== 'jwt') return `the deployed stack uses auth mode ${outputs.AuthMode ?? '(unknown)'}; the suite signs jwt-mode tokens (deploy with npm run deploy:localstack)`;
  return undefined;
}

const reason = skipReason();
if (reason) process.stderr.write(`\n[test:localstack] SKIPPED: ${reason}\n\n`);
const webSocketUrl = outputs?.WebSocketUrl;
if (!reason && !webSocketUrl) process.stderr.write('\n[test:localstack] WebSocket part SKIPPED: the deployment has no WebSocket API (LocalStack free plan has no API Gateway v2).\n\n');

const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };
const region = process.env.AWS_REGION ?? 'us-east-1';
const tenantId = `ls-${Date.now()}`;

/** Polls `check` until it returns a value, a bounded number of times. */
async function eventually<T>(check: () => Promise<T | undefined>, attempts = 30, intervalMs = 2_000): Promise<T> {
  for (let attempt = 1; attempt <= attempts; attempt += 1) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  throw new Error(`no result after ${attempts} attempts`);
}

function mentionDetail(recipient: string, eventId: string, extra: Record<string, unknown> = {}) {
  return { id: eventId, tenantId, actor: { id: 'bob', name: 'Bob' }, recipients: [recipient], data: { postId: 'p1', excerpt: `hello ${eventId}` }, ...extra };
}

describe.skipIf(reason !== undefined)(`LocalStack deployment${reason ? ` (skipped: ${reason})` : ''}`, () => {
  let secrets: LocalSecrets;
  let jwksServer: Server;
  let restUrl: string;

  beforeAll(async () => {
    secrets = await loadLocalSecrets(localSettingsFromEnv().dataDir);
    // The deployed authorizer fetches this JWKS (LOCALSTACK_JWKS_URL at deploy time points here).
    jwksServer = createServer((_, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(secrets.jwks));
    });
    await new Promise<void>((resolve) => jwksServer.listen(jwksPort(), '0.0.0.0', resolve));
    restUrl = localstackRestUrl(outputs!.RestApiUrl!, endpoint);
  });

  afterAll(async () => {
    await new Promise((resolve) => jwksServer?.close(resolve));
  });

  async function inbox(userId: string): Promise<{ items: { id: string; type: string; body: string }[] }> {
    const token = await secrets.issueToken({ tenantId, userId });
    const response = await fetch(`${restUrl}notifications`, { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
    return (await response.json()) as { items: { id: string; type: string; body: string }[] };
  }

  it('refuses a request without a token with 401 in the error format', async () => {
    const response = await fetch(`${restUrl}notifications`);
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
  });

  it('turns an event published with the EventBridge SDK into an inbox item read over REST', async () => {
    const events = new EventBridgeClient({ endpoint, region, credentials });
    const eventId = `evt-${randomUUID()}`;
    const answer = await events.send(
      new PutEventsCommand({
        Entries: [{ EventBusName: outputs!.EventBusName, Source: 'test.localstack', DetailType: 'mention.created', Detail: JSON.stringify(mentionDetail('alice', eventId)) }],
      }),
    );
    expect(answer.FailedEntryCount ?? 0).toBe(0);
    const item = await eventually(async () => (await inbox('alice')).items.find((candidate) => candidate.body === `hello ${eventId}`));
    expect(item.type).toBe('mention.created');
  });

  it('sends a deferred event when its schedule target (the intake queue) receives it, as Scheduler would', async () => {
    const queueUrl = outputs![`IntakeQueueUrl${resourceNameOf('mention.created')}`]!;
    const sqs = new SQSClient({ endpoint, region, credentials });
    const eventId = `evt-${randomUUID()}`;
    // The schedule's payload is the intake message unchanged: the EventBridge event, sendAt now due.
    const body = {
      version: '0',
      id: randomUUID(),
      'detail-type': 'mention.created',
      source: 'test.localstack',
      account: '000000000000',
      time: new Date().toISOString(),
      region,
      resources: [],
      detail: mentionDetail('carol', eventId, { sendAt: new Date(Date.now() - 1_000).toISOString() }),
    };
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(body) }));
    const item = await eventually(async () => (await inbox('carol')).items.find((candidate) => candidate.body === `hello ${eventId}`));
    expect(item.type).toBe('mention.created');
  });

  it.skipIf(!webSocketUrl)(`connects a WebSocket with a token${webSocketUrl ? '' : ' (skipped: no WebSocket API in this deployment; LocalStack free plan has no API Gateway v2)'}`, async () => {
    const token = await secrets.issueToken({ tenantId, userId: 'alice' });
    const socket = new WebSocket(`${webSocketUrl}?token=${encodeURIComponent(token)}`);
    const pong = await new Promise<string>((resolve, reject) => {
      socket.once('open', () => socket.send(JSON.stringify({ action: 'ping' })));
      socket.once('message', (data) => resolve(String(data)));
      socket.once('error', reject);
    });
    socket.close();
    expect(JSON.parse(pong)).toEqual({ type: 'pong' });
  });
});
