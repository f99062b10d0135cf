/**
 * Operations end to end (local runtime in-process, real PutEvents and WebSocket): the delivery trace
 * answers "why didn't X get Y" with `explain`, and `dlq redrive` replays a dead-lettered event once.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CreateTableCommand, DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserRef } from '../../src/core/model/user.js';
import { createTableInput, LOCAL_CREDENTIALS, LOCAL_REGION } from '../../src/local/embedded-dynamo.js';
import { startLocalRuntime, type LocalRuntime } from '../../src/local/runtime.js';
import { localSettingsFromEnv } from '../../src/local/settings.js';
import { redriveDeadLetterQueue, listDeadLetterQueues } from '../../src/ops/dlq.js';
import { explainEvent } from '../../src/ops/explain.js';
import { localTarget, type OpsTarget } from '../../src/ops/targets.js';
import { tableSpecs } from '../../src/table-specs.js';
import { aComment, aMention } from '../support/events.js';
import { pollUntil } from '../support/poll-until.js';
import { eventsClientOf, inboxOf, pipelineDrained, publish, putPreferences, sleep } from '../support/schedules-e2e.js';
import { TestSocket } from '../support/ws-client.js';

const user = (userId: string): UserRef => ({ tenantId: 'acme', userId });
const run = promisify(execFile);

interface Started {
  dataDir: string;
  runtime: LocalRuntime;
  events: EventBridgeClient;
  target: OpsTarget;
  sockets: TestSocket[];
}

async function start(prefix: string, overrides: Partial<ReturnType<typeof localSettingsFromEnv>> = {}): Promise<Started> {
  const dataDir = await mkdtemp(join(tmpdir(), prefix));
  const runtime = await startLocalRuntime({ ...localSettingsFromEnv({}), port: 0, wsPort: 0, dataDir, infoBatchWindowMs: 100, ...overrides });
  return { dataDir, runtime, events: eventsClientOf(runtime), target: await localTarget(dataDir), sockets: [] };
}

async function stop(started: Started | undefined): Promise<void> {
  if (!started) return;
  await Promise.all(started.sockets.map((socket) => socket.close()));
  started.events.destroy();
  started.target.destroy();
  await started.runtime.close();
  await rm(started.dataDir, { recursive: true, force: true });
}

async function connect(started: Started, who: UserRef): Promise<TestSocket> {
  const socket = await TestSocket.open(started.runtime.endpoints.ws, await started.runtime.secrets.issueToken(who));
  started.sockets.push(socket);
  return socket;
}

describe('explain: the delivery trace', () => {
  let started: Started;
  beforeAll(async () => {
    started = await start('ops-explain-e2e-', { channelBatchWindowMs: 100 });
  });
  afterAll(() => stop(started));

  it('names each recipient outcome: muted, held for quiet hours, delivered live, and each channel\'s', { timeout: 120_000 }, async () => {
    // Prepare: mira muted comments; quinn is in quiet hours for the next hour (UTC); dave is online.
    const { runtime } = started;
    await putPreferences(runtime, user('mira'), { timeZone: 'UTC', mutedTypes: ['comment.created'] });
    const hour = (offset: number) => `${String((new Date().getUTCHours() + 24 + offset) % 24).padStart(2, '0')}:00`;
    await putPreferences(runtime, user('quinn'), { timeZone: 'UTC', quietHours: { start: hour(0), end: hour(2) } });
    await Promise.all([connect(started, user('mira')), connect(started, user('quinn'))]);
    const dave = await connect(started, user('dave'));

    // Act
    const comment = aComment('dave', { recipients: ['mira', 'quinn', 'dave'] });
    await publish(started.events, 'comment.created', comment);
    await dave.waitFor('notification', 1);
    await pipelineDrained(runtime);
    // The push and email consumers decide too (comment.created: push off, email on; nobody has an address).
    await pollUntil(() => runtime.queues.push.peek().length === 0 && runtime.queues.email.peekUndelayed().length === 0, { attempts: 200, intervalMs: 25 }, 'channel queues empty');
    const traceOf = (userId: string) => pollUntil(async () => {
      const entries = await explainEvent(started.target, 'acme', userId, comment.id);
      return entries.some((entry) => entry.stage !== 'intake') ? entries : undefined;
    }, { attempts: 100, intervalMs: 50 }, `trace of ${userId}`);
    const [mira, quinn, daveTrace] = await Promise.all([traceOf('mira'), traceOf('quinn'), traceOf('dave')]);
    const cli = await run(process.execPath, ['--import', 'tsx', 'src/ops/explain.ts', '--tenant', 'acme', '--user', 'quinn', '--event', comment.id], { env: { ...process.env, DATA_DIR: started.dataDir } });

    // Assess
    // Sorted: the live, push and email consumers run side by side.
    const outcomes = (entries: typeof mira) => entries.map((entry) => `${entry.stage}:${entry.outcome}`).sort();
    expect(outcomes(mira)).toEqual(['fanout:muted', 'intake:accepted']);
    expect(outcomes(quinn)).toEqual(['email:quiet_hours', 'fanout:inbox_written', 'gate:quiet_hours', 'intake:accepted', 'push:channel_off']);
    expect(quinn.find((entry) => entry.stage === 'gate')?.detail).toMatch(/quiet hours: held until \d{4}-\d\d-\d\dT/);
    expect(outcomes(daveTrace)).toEqual(['delivery:delivered_live', 'email:no_email_address', 'fanout:inbox_written', 'gate:admitted', 'intake:accepted', 'push:channel_off']);
    expect(cli.stdout).toMatch(/fanout\s+inbox_written/);
    expect(cli.stdout).toMatch(/gate\s+quiet_hours\s+quiet hours: held until/);
  });
});

describe('dlq: redrive', () => {
  let started: Started;
  beforeAll(async () => {
    started = await start('ops-dlq-e2e-', { functionTimeoutMs: 300, maxReceiveCount: 2 });
  });
  afterAll(() => stop(started));

  it('an event dead-lettered while the inbox table is missing is redriven and delivered once, even when redriven twice', { timeout: 120_000 }, async () => {
    // Prepare: alice is online; the Inbox table is gone, so every fan-out attempt fails.
    const { runtime } = started;
    const socket = await connect(started, user('alice'));
    const dynamo = new DynamoDBClient({ endpoint: runtime.dynamo.endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
    await dynamo.send(new DeleteTableCommand({ TableName: runtime.dynamo.tableNames.inbox }));
    const mention = aMention();
    const intake = runtime.queues.urgentIntake['mention.created']!;
    await publish(started.events, 'mention.created', mention);
    const dlqName = intake.deadLetterQueue!.name;
    await pollUntil(() => intake.deadLetterQueue!.peek().length === 1, { attempts: 400, intervalMs: 50 }, 'event dead-lettered');
    const [deadLetteredBody] = intake.deadLetterQueue!.peek().map((message) => message.body);
    const listed = await listDeadLetterQueues(started.target);
    const deadLettered = await explainEvent(started.target, 'acme', 'alice', mention.id);

    // Act: the fault is fixed, then the DLQ is redriven; then the same message is dead-lettered again and redriven again.
    await dynamo.send(new CreateTableCommand(createTableInput(tableSpecs.inbox, runtime.dynamo.tableNames.inbox)));
    const first = await redriveDeadLetterQueue(started.target, dlqName);
    await socket.waitFor('notification', 1);
    await pipelineDrained(runtime);
    await started.target.sqs.send(new SendMessageCommand({ QueueUrl: intake.deadLetterQueue!.url, MessageBody: deadLetteredBody! }));
    const second = await redriveDeadLetterQueue(started.target, dlqName);
    await pipelineDrained(runtime);
    await sleep(500);
    dynamo.destroy();

    // Assess
    expect(listed.find((queue) => queue.name === dlqName)).toMatchObject({ kind: 'queue', approximateMessages: 1 });
    expect(deadLettered.map((entry) => `${entry.stage}:${entry.outcome}`)).toContain('dlq:dead_lettered');
    expect(first).toMatchObject({ replayed: 1, failed: 0 });
    expect(second).toMatchObject({ replayed: 1, failed: 0 });
    expect(intake.deadLetterQueue!.peek()).toHaveLength(0);
    expect((await inboxOf(runtime, user('alice'))).filter((item) => item.type === 'mention.created')).toHaveLength(1);
    expect(socket.messages.filter((message) => message.type === 'notification')).toHaveLength(1);
  });
});
