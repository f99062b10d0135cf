/**
 * Attacks on the local runtime's public surfaces (ARCHITECTURE.md, Security): tokens, REST input,
 * PutEvents input, the dev-only token route, the WebSocket routes and the local `@connections` API.
 * Every refusal is a 4xx that names the problem, never a 500, and changes nothing.
 */
import { createHash, createHmac } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT, importJWK, type JWK, type JWTPayload, type JWTHeaderParameters } from 'jose';
import { GetQueueAttributesCommand, GetQueueUrlCommand, SendMessageCommand, SQSClient, SQSServiceException } from '@aws-sdk/client-sqs';
import type { FinalizeHandlerArguments } from '@smithy/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InboxRepository } from '../../src/adapters/dynamo/inbox-repository.js';
import { DEFAULT_TENANT_CLAIM } from '../../src/adapters/jwt-verifier.js';
import type { UserRef } from '../../src/core/model/user.js';
import { startLocalRuntime, type LocalRuntime } from '../../src/local/runtime.js';
import { localSettingsFromEnv } from '../../src/local/settings.js';
import { LOCAL_AUDIENCE, LOCAL_ISSUER } from '../../src/local/signing-key.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../src/local/embedded-dynamo.js';
import { loadLocalSqsCredentials, type LocalQueue } from '../../src/local/sqs/index.js';
import { aMention } from '../support/events.js';
import { aNotification, alice, bob, inboxItemsFor, SECOND } from '../support/fixtures.js';
import { call, isErrorBody, type HttpAnswer } from '../support/http.js';
import { TestSocket } from '../support/ws-client.js';

let runtime: LocalRuntime;
let dataDir: string;
let base: string;
let aliceToken: string;
let signingKey: CryptoKey;
const sockets: TestSocket[] = [];
const aliceOwn = Array.from({ length: 3 }, (_, i) => aNotification(Date.now() - 60 * SECOND + i * SECOND, { recipient: 'alice', eventId: `sec-${i}` }));

function expectError(answer: HttpAnswer, status: number, code?: string) {
  expect(answer.status).toBe(status);
  expect(isErrorBody(answer.body)).toBe(true);
  if (code !== undefined && isErrorBody(answer.body)) expect(answer.body.error.code).toBe(code);
}

function claimsOf(user: UserRef): JWTPayload {
  const now = Math.floor(Date.now() / 1000);
  return { [DEFAULT_TENANT_CLAIM]: user.tenantId, sub: user.userId, iss: LOCAL_ISSUER, aud: LOCAL_AUDIENCE, iat: now, exp: now + 3600 };
}

/** Signed with the runtime's own key: only the claims or the header are wrong. */
function signed(payload: JWTPayload, header: Partial<JWTHeaderParameters> = {}): Promise<string> {
  const kid = runtime.secrets.jwks.keys[0]!.kid;
  return new SignJWT(payload).setProtectedHeader({ alg: 'ES256', kid, ...header }).sign(signingKey);
}

/** Algorithm confusion: HS256 with the runtime's PUBLIC key (as JSON or its x coordinate) as the HMAC secret. */
function hs256WithPublicKey(payload: JWTPayload, secret: string): string {
  const kid = runtime.secrets.jwks.keys[0]!.kid;
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const input = `${encode({ alg: 'HS256', typ: 'JWT', kid })}.${encode(payload)}`;
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
}

/** A raw HTTP request (node:http), so Host and oversized bodies are sent exactly as given. */
function rawRequest(url: string, options: { method: string; headers?: Record<string, string>; body?: Buffer | string }): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method, headers: options.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown;
        try {
          body = text === '' ? undefined : JSON.parse(text);
        } catch {
          body = text;
        }
        resolve({ status: res.statusCode ?? 0, body, text });
      });
    });
    // The server may answer and close before the whole body is sent.
    req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error)));
    req.end(options.body);
  });
}

async function putEventsRaw(body: string): Promise<HttpAnswer> {
  return call(base, 'POST', '/', { headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': 'AWSEvents.PutEvents' }, body });
}

interface PutEventsAnswer {
  FailedEntryCount: number;
  Entries: Array<{ EventId?: string; ErrorCode?: string; ErrorMessage?: string }>;
}

async function putEvent(detailType: string, detail: unknown): Promise<PutEventsAnswer> {
  const answer = await putEventsRaw(JSON.stringify({ Entries: [{ EventBusName: runtime.endpoints.eventBusName, Source: 'test.security', DetailType: detailType, Detail: JSON.stringify(detail) }] }));
  expect(answer.status).toBe(200);
  return answer.body as PutEventsAnswer;
}

async function unreadOf(token: string): Promise<number> {
  return (( await call(base, 'GET', '/notifications/counts', { token })).body as { unread: number }).unread;
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'notifications-security-e2e-'));
  runtime = await startLocalRuntime({ ...localSettingsFromEnv({}), port: 0, wsPort: 0, dataDir });
  base = runtime.endpoints.http;
  aliceToken = await runtime.secrets.issueToken(alice);
  const stored = JSON.parse(await readFile(join(dataDir, 'local-secrets.json'), 'utf8')) as { privateJwk: JWK };
  signingKey = (await importJWK(stored.privateJwk, 'ES256')) as CryptoKey;
  await new InboxRepository(runtime.documentClient, runtime.dynamo.tableNames.inbox).writeInboxItems(inboxItemsFor(alice, aliceOwn));
});

afterAll(async () => {
  await Promise.all(sockets.map((socket) => socket.close()));
  await runtime?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('tokens', () => {
  it('refuses algorithm confusion, a missing exp, a future nbf, a wrong audience or issuer, an unknown kid and a non-string tenant', async () => {
    // Prepare
    const claims = claimsOf(alice);
    const { exp: _exp, ...withoutExp } = claims;
    const publicJwk = runtime.secrets.jwks.keys[0]!;
    const bad = [
      hs256WithPublicKey(claims, JSON.stringify(publicJwk)),
      hs256WithPublicKey(claims, publicJwk.x!),
      await signed(withoutExp),
      await signed({ ...claims, nbf: Math.floor(Date.now() / 1000) + 600 }),
      await signed({ ...claims, aud: 'another-api' }),
      await signed({ ...claims, iss: 'https://evil.example' }),
      await signed(claims, { kid: 'another-key' }),
      await signed({ ...claims, [DEFAULT_TENANT_CLAIM]: ['acme'] }),
      await signed({ ...claims, sub: 'a'.repeat(257) }),
    ];

    // Act
    const answers = await Promise.all(bad.map((token) => call(base, 'GET', '/notifications/counts', { token })));

    // Assess
    for (const answer of answers) expectError(answer, 401, 'unauthorized');
  });

  it('refuses a huge token with a 4xx, not a 500', async () => {
    // Act
    const nearLimit = await call(base, 'GET', '/notifications/counts', { token: `${'a'.repeat(12_000)}.b.c` });
    const overLimit = await call(base, 'GET', '/notifications/counts', { token: 'a'.repeat(40_000) });

    // Assess
    expectError(nearLimit, 401);
    expect(overLimit.status).toBeGreaterThanOrEqual(400);
    expect(overLimit.status).toBeLessThan(500);
  });

  it('refuses a REST token in the query string, alone or beside a header that is not a Bearer token', async () => {
    // Act
    const queryOnly = await call(base, 'POST', `/notifications/read-all?token=${aliceToken}`);
    const besideBasic = await call(base, 'POST', `/notifications/read-all?token=${aliceToken}`, { headers: { authorization: 'Basic eDp5' } });
    const readOne = await call(base, 'POST', `/notifications/${aliceOwn[0]!.id}/read?token=${aliceToken}`);

    // Assess
    expectError(queryOnly, 401, 'unauthorized');
    expectError(besideBasic, 401, 'unauthorized');
    expectError(readOne, 401, 'unauthorized');
    expect(await unreadOf(aliceToken)).toBe(aliceOwn.length);
  });
});

describe('REST input', () => {
  it('the write routes refuse an unknown query field with a 400 naming it, and change nothing', async () => {
    // Act
    const answers = await Promise.all([
      call(base, 'POST', '/notifications/read-all?userId=bob', { token: aliceToken }),
      call(base, 'POST', '/notifications/seen-all?tenantId=globex', { token: aliceToken }),
      call(base, 'POST', `/notifications/${aliceOwn[0]!.id}/read?as=bob`, { token: aliceToken }),
    ]);

    // Assess
    for (const answer of answers) {
      expectError(answer, 400, 'validation_error');
      expect(answer.text).toMatch(/userId|tenantId|as/);
    }
    expect(await unreadOf(aliceToken)).toBe(aliceOwn.length);
  });

  it('a body above the size limit is a 413 with an error body, not a 500', async () => {
    // Act
    const answer = await rawRequest(`${base}/notifications/read-all`, {
      method: 'POST',
      headers: { authorization: `Bearer ${aliceToken}`, 'content-type': 'application/json' },
      body: Buffer.alloc(2 * 1024 * 1024, 0x20),
    });

    // Assess
    expectError(answer, 413, 'payload_too_large');
    expect(await unreadOf(aliceToken)).toBe(aliceOwn.length);
  });

  it('a notification id with a key separator in the path is a 400 naming the id', async () => {
    // Act
    const answer = await call(base, 'POST', `/notifications/${encodeURIComponent(`${aliceOwn[0]!.id}#U#bob`)}/read`, { token: aliceToken });

    // Assess
    expectError(answer, 400, 'validation_error');
    expect(answer.text).toContain('id');
  });
});

describe('PutEvents input', () => {
  it('a request body or an entry that is not an object is refused with a 4xx, not a 500', async () => {
    // Act
    const nullBody = await putEventsRaw('null');
    const nullEntry = await putEventsRaw('{"Entries":[null]}');
    const stringEntry = await putEventsRaw('{"Entries":["x"]}');

    // Assess
    expect(nullBody.status).toBe(400);
    expect(nullBody.text).toContain('Entries');
    for (const answer of [nullEntry, stringEntry]) {
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ FailedEntryCount: 1, Entries: [{ ErrorCode: 'InvalidArgument' }] });
    }
  });

  it('ids that are empty or longer than 256 characters are refused naming the field (tenant, recipient, actor, followersOf, followee)', async () => {
    // Act
    const answers = await Promise.all([
      putEvent('mention.created', aMention({ tenantId: 'a'.repeat(257) })),
      putEvent('mention.created', aMention({ recipients: [''] })),
      putEvent('mention.created', aMention({ actor: { id: 'b'.repeat(257) } })),
      putEvent('post.published', { id: 'p-sep', tenantId: 'acme', actor: { id: 'bob' }, audience: { followersOf: '' }, data: { postId: 'p', title: 't' } }),
      putEvent('follow.created', { id: 'f-sep', tenantId: 'acme', actor: { id: 'bob' }, data: { followeeId: 'f'.repeat(257) } }),
    ]);

    // Assess
    const messages = answers.map((answer) => answer.Entries[0]?.ErrorMessage ?? '');
    expect(answers.every((answer) => answer.FailedEntryCount === 1)).toBe(true);
    expect(messages[0]).toContain('detail.tenantId');
    expect(messages[1]).toContain('detail.recipients.0');
    expect(messages[2]).toContain('detail.actor.id');
    expect(messages[3]).toContain('detail.audience.followersOf');
    expect(messages[4]).toContain('detail.data.followeeId');
  });

  it('an actor too large to store or push is refused naming detail.actor', async () => {
    // Act
    const answer = await putEvent('mention.created', aMention({ recipients: ['dana'], actor: { id: 'bob', avatar: 'x'.repeat(500_000) } }));

    // Assess
    expect(answer.FailedEntryCount).toBe(1);
    expect(answer.Entries[0]?.ErrorMessage).toContain('detail.actor');
  });

  it('an event time before 1970 (outside the id range) is refused naming detail.time', async () => {
    // Act
    const answer = await putEvent('mention.created', aMention({ recipients: ['dana'], time: '1960-01-01T00:00:00Z' }));

    // Assess
    expect(answer.FailedEntryCount).toBe(1);
    expect(answer.Entries[0]?.ErrorMessage).toContain('detail.time');
  });
});

describe('the dev-only token route', () => {
  it('answers a loopback caller that names a loopback host', async () => {
    // Act
    const answer = await rawRequest(`${base}/dev/token`, { method: 'POST', headers: { host: new URL(base).host }, body: JSON.stringify({ tenantId: 'acme', userId: 'alice' }) });

    // Assess
    expect(answer.status).toBe(200);
  });

  it('refuses a request whose Host is another name (a DNS-rebinding page in the developer browser)', async () => {
    // Act
    const answer = await rawRequest(`${base}/dev/token`, { method: 'POST', headers: { host: `evil.example:${new URL(base).port}` }, body: JSON.stringify({ tenantId: 'acme', userId: 'alice' }) });

    // Assess
    expectError(answer, 403, 'forbidden');
  });

  it('the catalog route refuses a rebound Host too', async () => {
    // Act
    const answer = await rawRequest(`${base}/dev/catalog?tenant=acme&user=alice`, { method: 'GET', headers: { host: `evil.example:${new URL(base).port}` } });
    const own = await rawRequest(`${base}/dev/catalog?tenant=acme&user=alice`, { method: 'GET' });

    // Assess
    expectError(answer, 403, 'forbidden');
    expect(own.status).toBe(200);
  });
});

describe('WebSocket', () => {
  it("a client cannot make the server push to another user's connection through its messages", async () => {
    // Prepare
    const aliceSocket = await TestSocket.open(runtime.endpoints.ws, aliceToken);
    const bobSocket = await TestSocket.open(runtime.endpoints.ws, await runtime.secrets.issueToken(bob));
    sockets.push(aliceSocket, bobSocket);
    const connectionIds = runtime.live.gateway.connectionIds();
    expect(connectionIds).toHaveLength(2);

    // Act
    for (const connectionId of connectionIds) {
      aliceSocket.send({ action: 'sendmessage', connectionId, message: { type: 'notification' } });
      aliceSocket.send({ action: 'ping', connectionId });
    }
    await aliceSocket.waitFor('pong', connectionIds.length);
    await aliceSocket.waitFor('error', connectionIds.length);

    // Assess
    expect(bobSocket.messages).toEqual([]);
  });

  it('a $connect token in a header instead of the query is refused', async () => {
    // Act
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(runtime.endpoints.ws.replace('ws:', 'http:'), {
        headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': Buffer.alloc(16, 1).toString('base64'), authorization: `Bearer ${aliceToken}` },
      });
      req.on('upgrade', (res, socket) => {
        socket.destroy();
        resolve(res.statusCode ?? 0);
      });
      req.on('response', (res) => resolve(res.statusCode ?? 0));
      req.on('error', reject);
      req.end();
    });

    // Assess
    expect(status).toBe(401);
  });
});

describe('the local @connections management API', () => {
  it("refuses a caller that names another host (a DNS-rebinding page), so nobody else pushes to a user's socket", async () => {
    // Prepare
    const socket = await TestSocket.open(runtime.endpoints.ws, await runtime.secrets.issueToken({ tenantId: 'acme', userId: 'erin' }));
    sockets.push(socket);
    const [connectionId] = runtime.live.gateway.connectionIds().slice(-1);
    const url = `${runtime.live.gateway.managementEndpoint}/@connections/${encodeURIComponent(connectionId!)}`;

    // Act
    const rebound = await rawRequest(url, { method: 'POST', headers: { host: `evil.example:${new URL(url).port}` }, body: '{"type":"notification"}' });
    const deleted = await rawRequest(url, { method: 'DELETE', headers: { host: `evil.example:${new URL(url).port}` } });
    const own = await rawRequest(url, { method: 'GET' });

    // Assess
    expect(rebound.status).toBe(403);
    expect(deleted.status).toBe(403);
    expect(own.status).toBe(200);
    expect(socket.messages).toEqual([]);
    expect(socket.isClosed).toBe(false);
  });

  it('an id that cannot be percent-decoded is a 400, not a 500', async () => {
    // Act
    const answer = await rawRequest(`${runtime.live.gateway.managementEndpoint}/@connections/%E0%A4%A`, { method: 'POST', body: '{}' });

    // Assess
    expect(answer.status).toBe(400);
  });
});

/** Bodies sent to any local queue while `act` runs (a refused request must queue nothing). */
async function queuedDuring(act: () => Promise<void>): Promise<string[]> {
  const queued: string[] = [];
  const stops = runtime.queues.registry.all().map((queue: LocalQueue) => queue.onSend((message) => queued.push(message.body)));
  try {
    await act();
  } finally {
    for (const stop of stops) stop();
  }
  return queued;
}

const runtimeSqsCredentials = () => loadLocalSqsCredentials(join(dataDir, 'queues'));

/** An SQS client signing with `credentials`; `target` rewrites X-Amz-Target before signing (so the signature is valid). */
function sqsClient(credentials: { accessKeyId: string; secretAccessKey: string }, target?: string): SQSClient {
  const client = new SQSClient({ endpoint: base, region: LOCAL_REGION, credentials, maxAttempts: 1 });
  if (target !== undefined) {
    client.middlewareStack.add(
      (next) => async (args) => {
        (args.request as { headers: Record<string, string> }).headers['x-amz-target'] = target;
        return next(args);
      },
      { step: 'build', name: 'rewriteTarget' },
    );
  }
  return client;
}

async function sqsFailure(send: () => Promise<unknown>): Promise<{ status: number | undefined; code: string }> {
  try {
    await send();
  } catch (error) {
    if (error instanceof SQSServiceException) return { status: error.$metadata.httpStatusCode, code: error.name };
    throw error;
  }
  throw new Error('the request was accepted');
}

describe('the local SQS endpoint (only the runtime itself may call it)', () => {
  it('refuses a forged SendMessage to the delivery queue from another process: unsigned, foreign key or wrong secret get a 403, nothing is queued or pushed', async () => {
    // Prepare
    const socket = await TestSocket.open(runtime.endpoints.ws, await runtime.secrets.issueToken({ tenantId: 'acme', userId: 'forge-target' }));
    sockets.push(socket);
    const forgedJob = JSON.stringify({ tenantId: 'acme', userId: 'forge-target', notification: { id: 'forged', type: 'mention.created', title: 'pwned' } });
    const own = runtimeSqsCredentials();
    const answers: Array<{ status: number | undefined; code: string }> = [];

    // Act
    const queued = await queuedDuring(async () => {
      const unsigned = await call(base, 'POST', '/', {
        headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'AmazonSQS.SendMessage' },
        body: JSON.stringify({ QueueUrl: runtime.queues.urgent.url, MessageBody: forgedJob }),
      });
      answers.push({ status: unsigned.status, code: String(unsigned.text) });
      for (const credentials of [LOCAL_CREDENTIALS, { accessKeyId: own.accessKeyId, secretAccessKey: `${own.secretAccessKey}x` }]) {
        const client = sqsClient(credentials);
        answers.push(await sqsFailure(() => client.send(new SendMessageCommand({ QueueUrl: runtime.queues.urgent.url, MessageBody: forgedJob }))));
        client.destroy();
      }
    });
    await new Promise((resolve) => setTimeout(resolve, 300));

    // Assess
    expect(answers.map((answer) => answer.status)).toEqual([403, 403, 403]);
    expect(answers[0]!.code).toContain('MissingAuthenticationToken');
    expect(answers[1]!.code).toBe('InvalidClientTokenId');
    expect(answers[2]!.code).toBe('SignatureDoesNotMatch');
    expect(queued).toEqual([]);
    expect(socket.messages).toEqual([]);
  });

  it("answers the runtime's own SigV4 credentials, and refuses them from a rebound Host", async () => {
    // Prepare
    const client = sqsClient(runtimeSqsCredentials());

    // Act
    const attributes = await client.send(new GetQueueAttributesCommand({ QueueUrl: runtime.queues.urgent.url, AttributeNames: ['All'] }));
    client.destroy();
    const rebound = await rawRequest(`${base}/`, {
      method: 'POST',
      headers: { host: `evil.example:${new URL(base).port}`, 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'AmazonSQS.SendMessage' },
      body: JSON.stringify({ QueueUrl: runtime.queues.urgent.url, MessageBody: '{}' }),
    });

    // Assess
    expect(attributes.Attributes?.QueueArn).toBe(runtime.queues.urgent.arn);
    expect(rebound.status).toBe(403);
  });

  it('refuses a captured signed SendMessage replayed with another body, even with the original body\'s hash in x-amz-content-sha256; the unchanged replay is accepted', async () => {
    // Prepare: the runtime's own client signs a SendMessage to an intake queue (whose messages carry no signature of their own); the request is captured, not sent.
    const client = sqsClient(runtimeSqsCredentials());
    let captured: { path: string; headers: Record<string, string>; body: string } | undefined;
    client.middlewareStack.addRelativeTo(
      () => async (args: FinalizeHandlerArguments<object>) => {
        const request = args.request as { path: string; headers: Record<string, string>; body: string | Uint8Array };
        captured = { path: request.path, headers: { ...request.headers }, body: typeof request.body === 'string' ? request.body : new TextDecoder().decode(request.body) };
        throw new Error('captured');
      },
      { relation: 'after', toMiddleware: 'httpSigningMiddleware', name: 'captureSignedRequest' },
    );
    const intake = runtime.queues.intake['mention.created']!;
    const original = JSON.stringify({ QueueUrl: intake.url, MessageBody: 'original' });
    await expect(client.send(new SendMessageCommand({ QueueUrl: intake.url, MessageBody: 'original' }))).rejects.toThrow('captured');
    client.destroy();
    const signed = captured!;
    expect(signed.body).toBe(original);
    // Same length as the original, so even a signed content-length does not tell them apart.
    const forgedBody = JSON.stringify({ QueueUrl: intake.url, MessageBody: 'FORGED!!' });
    expect(forgedBody.length).toBe(original.length);
    const originalHash = createHash('sha256').update(original).digest('hex');
    const replay = (body: string, extra: Record<string, string> = {}) => rawRequest(`${base}${signed.path}`, { method: 'POST', headers: { ...signed.headers, ...extra, 'content-length': String(Buffer.byteLength(body)) }, body });

    // Act
    const answers: HttpAnswer[] = [];
    const queued = await queuedDuring(async () => {
      answers.push(await replay(forgedBody, { 'x-amz-content-sha256': originalHash }));
      answers.push(await replay(forgedBody));
    });
    const unchanged = await queuedDuring(async () => {
      answers.push(await replay(original));
    });

    // Assess
    expect(answers.map((answer) => answer.status)).toEqual([403, 403, 200]);
    expect(answers[0]!.text).toContain('SignatureDoesNotMatch');
    expect(queued).toEqual([]);
    expect(unchanged).toEqual(['original']);
  });

  it.each(['AmazonSQS.toString', 'AmazonSQS.constructor', 'AmazonSQS.__proto__', 'AmazonSQS.hasOwnProperty', 'AmazonSQS.Nope'])('answers %s with a 400 InvalidAction, not a 500', async (target) => {
    // Prepare
    const client = sqsClient(runtimeSqsCredentials(), target);

    // Act
    const failure = await sqsFailure(() => client.send(new GetQueueUrlCommand({ QueueName: 'UrgentDelivery' })));
    client.destroy();

    // Assess
    expect(failure).toEqual({ status: 400, code: 'InvalidAction' });
  });
});

describe('PutEvents answers per entry like AWS', () => {
  const entry = (detail: string, extra: Record<string, unknown> = {}) => ({ EventBusName: 'notifications', Source: 'test.security', DetailType: 'mention.created', Detail: detail, ...extra });
  const aGoodDetail = () => JSON.stringify(aMention({ recipients: ['per-entry'] }));
  const deeplyNested = `{"id":"deep","tenantId":"acme","actor":{"id":"bob","extras":${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}},"recipients":["x"],"data":{"postId":"p"}}`;

  it('accepts the good entries and fails an out-of-range Time or a deeply nested Detail individually: 200, never a 500, nothing of the bad ones queued', async () => {
    // Act
    let answer: HttpAnswer | undefined;
    const queued = await queuedDuring(async () => {
      answer = await putEventsRaw(JSON.stringify({ Entries: [entry(aGoodDetail()), entry(aGoodDetail(), { Time: 1e300 }), entry(aGoodDetail(), { Time: '+275760-09-14T00:00:00Z' }), entry(deeplyNested), entry(aGoodDetail())] }));
    });

    // Assess
    expect(answer!.status).toBe(200);
    const body = answer!.body as PutEventsAnswer;
    expect(body.FailedEntryCount).toBe(3);
    expect(body.Entries.map((result) => (result.EventId ? 'ok' : result.ErrorCode))).toEqual(['ok', 'InvalidArgument', 'InvalidArgument', 'InvalidArgument', 'ok']);
    expect(body.Entries[1]!.ErrorMessage).toContain('Time');
    expect(body.Entries[3]!.ErrorMessage).toContain('nested deeper');
    expect(queued.map((queuedBody) => (JSON.parse(queuedBody) as { id: string }).id).sort()).toEqual([body.Entries[0]!.EventId, body.Entries[4]!.EventId].sort());
  });

  it('an entry without EventBusName goes to the default bus: accepted, not delivered; an unknown bus is a per-entry ResourceNotFoundException', async () => {
    // Act
    let answer: HttpAnswer | undefined;
    const queued = await queuedDuring(async () => {
      const { EventBusName: _bus, ...withoutBus } = entry(aGoodDetail());
      answer = await putEventsRaw(JSON.stringify({ Entries: [withoutBus, entry(aGoodDetail(), { EventBusName: 'default' }), entry(aGoodDetail(), { EventBusName: 'no-such-bus' })] }));
    });

    // Assess
    expect(answer!.status).toBe(200);
    const body = answer!.body as PutEventsAnswer;
    expect(body.FailedEntryCount).toBe(1);
    expect(body.Entries[0]!.EventId).toMatch(/.+/);
    expect(body.Entries[1]!.EventId).toMatch(/.+/);
    expect(body.Entries[2]).toMatchObject({ ErrorCode: 'ResourceNotFoundException', ErrorMessage: expect.stringContaining('no-such-bus') });
    expect(queued).toEqual([]);
  });

  it('refuses per entry a Detail with a __proto__ key or a constructor.prototype, and a Detail that is a JSON string inside the string', async () => {
    // Prepare: written as text, since a JS object literal would not keep a __proto__ key
    const withProto = aGoodDetail().replace('{', '{"__proto__":{"isAdmin":true},');
    const withNestedProto = aGoodDetail().replace('"data":{', '"data":{"__proto__":{"polluted":1},');
    const withConstructor = aGoodDetail().replace('{', '{"constructor":{"prototype":{"polluted":1}},');
    const doubleEncoded = JSON.stringify(aGoodDetail());

    // Act
    let answer: HttpAnswer | undefined;
    const queued = await queuedDuring(async () => {
      answer = await putEventsRaw(JSON.stringify({ Entries: [entry(withProto), entry(withNestedProto), entry(withConstructor), entry(doubleEncoded)] }));
    });

    // Assess
    expect(answer!.status).toBe(200);
    const body = answer!.body as PutEventsAnswer;
    expect(body.FailedEntryCount).toBe(4);
    expect(body.Entries[0]!.ErrorMessage).toContain('__proto__');
    expect(body.Entries[1]!.ErrorMessage).toContain('__proto__');
    expect(body.Entries[2]!.ErrorMessage).toContain('constructor');
    expect(body.Entries[3]).toMatchObject({ ErrorCode: 'MalformedDetail', ErrorMessage: expect.stringContaining('JSON string') });
    expect(queued).toEqual([]);
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
  });

  it('refuses a rebound Host (a DNS-rebinding page) before reading the request', async () => {
    // Act
    const answer = await rawRequest(`${base}/`, {
      method: 'POST',
      headers: { host: `evil.example:${new URL(base).port}`, 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': 'AWSEvents.PutEvents' },
      body: JSON.stringify({ Entries: [entry(aGoodDetail())] }),
    });

    // Assess
    expect(answer.status).toBe(403);
  });

  it('answers another AWSEvents target (including Object.prototype names) with a 400', async () => {
    // Act
    const answers = await Promise.all(['AWSEvents.toString', 'AWSEvents.__proto__'].map((target) => call(base, 'POST', '/', { headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': target }, body: '{}' })));

    // Assess
    for (const answer of answers) expect(answer.status).toBe(400);
  });
});
