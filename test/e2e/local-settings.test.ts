/**
 * Every variable the docs list for the local runtime (the generated table of docs/local-runtime.md,
 * `localSettingsShape`) is read: one runtime started from an environment with each of them set to a
 * value other than its default, as `npm start` does (`localSettingsFromEnv(process.env)`), and one
 * test per variable that finds its value where the runtime uses it. Then a short
 * `PREFERENCES_CACHE_TTL_MS` end to end: a live push switched back on applies within the TTL.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFileSync, readdirSync, readFileSync } from 'node:fs';
import { ENV } from '../../src/env.js';
import type { RecordedAwsCall } from '../../src/local/aws-calls/recorded-call.js';
import { startLocalRuntime, type LocalRuntime as StartedRuntime } from '../../src/local/runtime.js';
import { localSettingsFromEnv, localSettingsShape } from '../../src/local/settings.js';
import { aComment, aMention, putEntry } from '../support/events.js';
import { freePort } from '../support/http.js';
import { eventsClientOf, pipelineDrained, publish, putPreferences, sleep } from '../support/schedules-e2e.js';
import { TestSocket } from '../support/ws-client.js';

const user = { tenantId: 'acme', userId: 'settings-alice' };
let started: StartedRuntime | undefined;
/** The runtime under test (the last test closes it to read its recording). */
const runtime = new Proxy({} as StartedRuntime, { get: (_target, property) => Reflect.get(started!, property) });
let dataDir: string;
/**
 * Every variable but LOCAL_FUNCTIONS (which swaps the sources for the deployed bundles: its own test
 * below) and CATALOG_ENTRY (a team's catalog module: test/e2e/npm-start.test.ts starts `npm start` with one).
 */
let env: Record<Exclude<keyof typeof localSettingsShape, 'LOCAL_FUNCTIONS' | 'CATALOG_ENTRY'>, string>;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'local-settings-e2e-'));
  const [port, wsPort] = [await freePort(), await freePort()];
  // Every value differs from its default (docs/local-runtime.md).
  env = {
    HOST: 'localhost',
    PORT: String(port),
    WS_PORT: String(wsPort),
    DATA_DIR: join(dataDir, 'data'),
    CELEBRITY_THRESHOLD: '77',
    INFO_BATCH_WINDOW_MS: '123',
    FEED_SHARDS: '3',
    FUNCTION_TIMEOUT_MS: '4321',
    QUEUE_VISIBILITY_TIMEOUT_MS: '30001',
    MAX_RECEIVE_COUNT: '7',
    INTAKE_BACKLOG_LIMIT: '3',
    INTAKE_BACKLOG_SECONDS: '7',
    RATE_LIMIT_PER_MINUTE: '11',
    SEND_AT_MIN_DELAY_MS: '2500',
    LOG_LEVEL: 'INFO',
    CHANNEL_BATCH_WINDOW_MS: '456',
    CHANNEL_RATE_LIMIT_PER_WINDOW: '9',
    SMS_DAILY_LIMIT_PER_USER: '4',
    SMS_DAILY_LIMIT: '321',
    SMS_SELF_MANAGED_OPT_OUTS: 'true',
    PREFERENCES_CACHE_TTL_MS: '250',
    ESCALATION_DELAY_SECONDS: '3',
    RECORD_AWS_CALLS: join(dataDir, 'aws-calls'),
    CORS_ALLOW_ORIGINS: 'https://app.test:8443',
  };
  started = await startLocalRuntime(localSettingsFromEnv(env));
}, 60_000);

afterAll(async () => {
  await started?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('the local runtime reads every documented variable', () => {
  it('has a test below for each variable of the generated table', () => {
    expect([...Object.keys(env), 'LOCAL_FUNCTIONS', 'CATALOG_ENTRY'].sort()).toEqual(Object.keys(localSettingsShape).sort());
  });

  it('HOST: every endpoint is on it', () => {
    expect(new URL(runtime.endpoints.http).hostname).toBe('localhost');
    expect(new URL(runtime.endpoints.ws).hostname).toBe('localhost');
  });

  it('PORT: the HTTP server listens on it', () => {
    expect(new URL(runtime.endpoints.http).port).toBe(env.PORT);
  });

  it('WS_PORT: the WebSocket gateway listens on it', () => {
    expect(new URL(runtime.endpoints.ws).port).toBe(env.WS_PORT);
  });

  it('DATA_DIR: the data, queue journals and secrets are written there', () => {
    expect(existsSync(join(env.DATA_DIR, 'dynamodb'))).toBe(true);
    expect(existsSync(join(env.DATA_DIR, 'queues'))).toBe(true);
  });

  it('CELEBRITY_THRESHOLD: the fan-out and the promotion are composed with it', () => {
    expect(runtime.configs.fanOut('post.published').settings.celebrityThreshold).toBe(77);
    expect(runtime.configs.promotion.celebrityThreshold).toBe(77);
  });

  it('INFO_BATCH_WINDOW_MS: the info queue batches for it', () => {
    expect(runtime.queues.info.consumerDefaults.batchingWindowMs).toBe(123);
  });

  it('FEED_SHARDS: the fan-out writes and the inbox reads that many shards', () => {
    expect(runtime.configs.fanOut('post.published').settings.feedShards).toBe(3);
    expect(runtime.configs.inbox.feedShards).toBe(3);
  });

  it('FUNCTION_TIMEOUT_MS: the consumers get it as their timeout', () => {
    expect(runtime.queues.urgent.functionTimeoutMs).toBe(4321);
  });

  it('QUEUE_VISIBILITY_TIMEOUT_MS: every queue hides a received message for it', () => {
    expect(runtime.queues.registry.all().map((queue) => queue.visibilityTimeoutMs)).toEqual(runtime.queues.registry.all().map(() => 30_001));
  });

  it('MAX_RECEIVE_COUNT: a message moves to its DLQ after that many receives', () => {
    expect(runtime.queues.urgent.maxReceiveCount).toBe(7);
    expect(runtime.queues.intake['mention.created']!.maxReceiveCount).toBe(7);
  });

  it('INTAKE_BACKLOG_LIMIT: PutEvents throttles the entries beyond it', async () => {
    const events = eventsClientOf(runtime);
    try {
      // Five entries of one type in one call: three fit under the limit, two are throttled.
      const answer = await events.send(new PutEventsCommand({ Entries: Array.from({ length: 5 }, () => putEntry('mention.created', aMention({ recipients: ['settings-nobody'] }))) }));
      expect(answer.FailedEntryCount).toBe(2);
      expect(answer.Entries!.filter((entry) => entry.ErrorCode === 'ThrottlingException')).toHaveLength(2);
    } finally {
      events.destroy();
    }
  });

  it('INTAKE_BACKLOG_SECONDS: PutEvents throttles on that many seconds of backlog (the limit of 3 messages binds first here)', async () => {
    const events = eventsClientOf(runtime);
    try {
      const answer = await events.send(new PutEventsCommand({ Entries: Array.from({ length: 4 }, () => putEntry('comment.created', aComment('settings-nobody'))) }));
      expect(answer.Entries!.find((entry) => entry.ErrorCode === 'ThrottlingException')?.ErrorMessage).toMatch(/local limit (7 s, at most )?3 messages/);
    } finally {
      events.destroy();
    }
  });

  it('RATE_LIMIT_PER_MINUTE: the live-delivery gate limits to it', () => {
    expect(runtime.configs.delivery('urgent').gate.rateLimitPerWindow).toBe(11);
  });

  it('SEND_AT_MIN_DELAY_MS: the fan-out sends a sendAt closer than it at once', () => {
    expect(runtime.configs.fanOut('mention.created').sendAt?.minDelayMs).toBe(2500);
  });

  it('LOG_LEVEL: the runtime logs at it', () => {
    expect(runtime.logger.getLevelName()).toBe('INFO');
  });

  it('CHANNEL_BATCH_WINDOW_MS: the email queue batches for it', () => {
    expect(runtime.queues.email.consumerDefaults.batchingWindowMs).toBe(456);
  });

  it('CHANNEL_RATE_LIMIT_PER_WINDOW: the channel consumers limit to it', () => {
    expect(runtime.configs.channel?.('push').rateLimitPerWindow).toBe(9);
    expect(runtime.configs.channel?.('email').rateLimitPerWindow).toBe(9);
  });

  it('SMS_DAILY_LIMIT_PER_USER: the SMS consumer guards texts per user per day with it', () => {
    expect(runtime.configs.channel?.('sms').sms?.limits.perUserPerDay).toBe(4);
  });

  it('SMS_DAILY_LIMIT: the SMS consumer guards texts per day in all with it', () => {
    expect(runtime.configs.channel?.('sms').sms?.limits.perDay).toBe(321);
  });

  it('SMS_SELF_MANAGED_OPT_OUTS: the inbound function answers the keywords (within the day\'s texts in all), not the stand-in', () => {
    expect(runtime.configs.smsInbound.answers?.provider.limits.perDay).toBe(321);
  });

  it('PREFERENCES_CACHE_TTL_MS: fan-out, delivery, the channels and the inbox trust a preferences read that long', () => {
    expect(runtime.configs.fanOut('mention.created').cacheTtlMs).toBe(250);
    expect(runtime.configs.delivery('urgent').gate.cacheTtlMs).toBe(250);
    expect(runtime.configs.channel?.('push').cacheTtlMs).toBe(250);
    expect(runtime.configs.inbox.cacheTtlMs).toBe(250);
  });

  it('ESCALATION_DELAY_SECONDS: the fan-out delays every type\'s escalation that long', () => {
    expect(runtime.configs.fanOut('mention.created').escalationDelaySeconds).toBe(3);
  });

  it('CORS_ALLOW_ORIGINS: the REST API answers the origin it names, and no other', async () => {
    const preflight = (origin: string) => fetch(`${runtime.endpoints.http}/notifications`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'GET' } });
    expect((await preflight('https://app.test:8443')).headers.get('access-control-allow-origin')).toBe('https://app.test:8443');
    expect((await preflight('https://other.test')).headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('LOCAL_FUNCTIONS', () => {
  it('makes the runtime load the functions from that cdk.out, and refuse one without a synthesized local deployment', async () => {
    // The deployed-bundles run (npm run test:deployed) starts runtimes from a real cdk.out; here, an empty one.
    const empty = await mkdtemp(join(tmpdir(), 'empty-cdk-out-'));
    try {
      const start = startLocalRuntime(localSettingsFromEnv({ PORT: '0', WS_PORT: '0', DATA_DIR: join(empty, 'data'), LOCAL_FUNCTIONS: empty }));
      await expect(start).rejects.toThrow(/LOCAL_FUNCTIONS=.*no local-deployment\.json there \(run npm run synth:local first\)/);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});

describe('a short PREFERENCES_CACHE_TTL_MS end to end', () => {
  it('pushes a type switched back on once the TTL has passed, not after the 30 s default', async () => {
    // Prepare: live pushes of mentions off, and a connected device that sees the switch-off applied.
    const events = eventsClientOf(runtime);
    const socket = await TestSocket.open(runtime.endpoints.ws, await runtime.secrets.issueToken(user));
    try {
      // The backlog test's entries are fanned out first (INTAKE_BACKLOG_LIMIT is 3 here).
      await pipelineDrained(runtime);
      await putPreferences(runtime, user, { timeZone: 'UTC', liveDelivery: { 'mention.created': false } });
      await sleep(400);
      const silenced = aMention({ recipients: [user.userId] });
      await publish(events, 'mention.created', silenced);
      await sleep(1_000);
      expect(socket.notificationIds()).toEqual([]);

      // Act: switched back on; the next mention comes after the 250 ms TTL.
      await putPreferences(runtime, user, { timeZone: 'UTC', liveDelivery: { 'mention.created': true } });
      await sleep(400);
      await publish(events, 'mention.created', aMention({ recipients: [user.userId] }));

      // Assess
      const [pushed] = await socket.waitFor('notification', 1, { attempts: 100, intervalMs: 25 });
      expect(pushed!.notification.type).toBe('mention.created');
    } finally {
      await socket.close();
      events.destroy();
    }
  });
});

describe('RECORD_AWS_CALLS', () => {
  it("writes every function's AWS calls there when the runtime closes", async () => {
    // Act: the tests above made REST calls and fanned events out.
    await started!.close();
    started = undefined;

    // Assess
    const files = readdirSync(env.RECORD_AWS_CALLS);
    expect(files).toHaveLength(1);
    const [header, ...calls] = readFileSync(join(env.RECORD_AWS_CALLS, files[0]!), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as RecordedAwsCall);
    expect(header).toMatchObject({ recording: 1, pid: process.pid });
    // The least-privilege check of this run reads these calls too (it expects a recording from every file that starts a runtime).
    const runRecording = process.env[ENV.RECORD_AWS_CALLS];
    if (runRecording) copyFileSync(join(env.RECORD_AWS_CALLS, files[0]!), join(runRecording, files[0]!));
    expect(calls).toEqual(expect.arrayContaining([
      expect.objectContaining({ principal: 'rest-preferences', service: 'dynamodb', operation: 'PutItem', via: 'sdk', target: expect.objectContaining({ kind: 'table', table: 'graph' }) }),
      expect.objectContaining({ principal: 'fanout:mention.created', service: 'sqs', operation: 'ReceiveMessage', via: 'event-source-mapping' }),
      expect.objectContaining({ principal: 'delivery:urgent', service: 'apigatewaymanagementapi', operation: 'PostToConnection' }),
    ]));
  });
});
