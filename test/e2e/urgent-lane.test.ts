/**
 * The urgent intake lane end to end (issue 29): real PutEvents through @aws-sdk/client-eventbridge,
 * a real WebSocket. While an info-priority load of mention.created fills its standard intake lane to
 * the point of throttling, an urgent mention of the same type is accepted at its first send (its
 * lane has its own backlog) and pushed while the info backlog is still queued. A poison urgent event
 * dead-letters into the urgent lane's DLQ, not the standard lane's.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_REGION } from '../../src/local/embedded-dynamo.js';
import { startLocalRuntime, type LocalRuntime } from '../../src/local/runtime.js';
import { localSettingsFromEnv } from '../../src/local/settings.js';
import { loadLocalSqsCredentials } from '../../src/local/sqs/index.js';
import { aMention, eventBridgeBody, putEntry } from '../support/events.js';
import { pollUntil } from '../support/poll-until.js';
import { TestSocket } from '../support/ws-client.js';

/** A hard cap (no rate rule): the standard lane throttles at a known depth, whatever the machine's speed. */
const BACKLOG_LIMIT = 60;
/** Each info event fans out to this many users, so the backlog takes seconds to drain. */
const LOAD_RECIPIENTS = 40;
const poll = { attempts: 400, intervalMs: 50 };

let runtime: LocalRuntime;
let dataDir: string;
let events: EventBridgeClient;
let socket: TestSocket | undefined;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'urgent-lane-'));
  runtime = await startLocalRuntime({ ...localSettingsFromEnv({}), port: 0, wsPort: 0, dataDir, intakeBacklogLimit: BACKLOG_LIMIT, intakeBacklogSeconds: 0, queueVisibilityTimeoutMs: 500, maxReceiveCount: 2 });
  events = new EventBridgeClient({ endpoint: runtime.endpoints.events, region: 'us-east-1', credentials: { accessKeyId: 'any', secretAccessKey: 'any' } });
});

afterAll(async () => {
  await socket?.close();
  events?.destroy();
  await runtime?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('When an info-priority load of mention.created makes its standard lane throttle', () => {
  it('accepts an urgent mention at its first send and pushes it before the info backlog drains', async () => {
    // Prepare: alice is connected; the load's audience is others.
    socket = await TestSocket.open(runtime.endpoints.ws, await runtime.secrets.issueToken({ tenantId: 'acme', userId: 'u-alice' }));
    const loadRecipients = Array.from({ length: LOAD_RECIPIENTS }, (_, index) => `u-load-${index}`);
    const standard = runtime.queues.intake['mention.created']!;
    let throttled = 0;
    for (let call = 0; call < 50 && throttled === 0; call++) {
      const answer = await events.send(new PutEventsCommand({ Entries: Array.from({ length: 10 }, () => putEntry('mention.created', aMention({ priority: 'info', recipients: loadRecipients }))) }));
      throttled += (answer.Entries ?? []).filter((entry) => entry.ErrorCode === 'ThrottlingException').length;
    }
    expect(throttled, 'the info load fills the standard lane until it throttles').toBeGreaterThan(0);

    // Act: an urgent mention of the same type (urgent by the type's default, no priority field).
    const urgent = aMention({ recipients: ['u-alice'] });
    const answer = await events.send(new PutEventsCommand({ Entries: [putEntry('mention.created', urgent)] }));
    const [pushed] = await socket.waitFor('notification', 1, poll);
    const backlogWhenPushed = standard.size;

    // Assess
    expect(answer.FailedEntryCount, JSON.stringify(answer.Entries)).toBe(0);
    expect(pushed!.notification.type).toBe('mention.created');
    expect(pushed!.notification.actor.id).toBe(urgent.actor.id);
    expect(backlogWhenPushed, 'info events still queued in the standard lane when the urgent one was pushed').toBeGreaterThan(0);
    // Nothing of the load was lost: the backlog drains in the end.
    await pollUntil(() => standard.size === 0 && (runtime.queues.urgentIntake['mention.created']?.size ?? 0) === 0, { attempts: 1_200, intervalMs: 100 }, 'both lanes drained');
  });
});

describe('When a poison urgent event reaches the urgent lane', () => {
  it('moves it to the urgent lane\'s DLQ, not the standard lane\'s', async () => {
    // Prepare: bypass PutEvents validation, as a bad event reaching the queue on AWS would.
    const sqs = new SQSClient({ endpoint: runtime.endpoints.http, region: LOCAL_REGION, credentials: loadLocalSqsCredentials(join(dataDir, 'queues')) });
    const urgentLane = runtime.queues.urgentIntake['mention.created']!;
    const standardDlq = runtime.queues.intake['mention.created']!.deadLetterQueue!;
    const standardDeadBefore = standardDlq.size;
    const poison = eventBridgeBody('mention.created', { ...aMention({ recipients: ['u-poison'], priority: 'urgent' }), data: { postId: 'p' } });

    // Act
    await sqs.send(new SendMessageCommand({ QueueUrl: urgentLane.url, MessageBody: poison }));
    sqs.destroy();

    // Assess
    const dead = await pollUntil(() => (urgentLane.deadLetterQueue!.size > 0 ? urgentLane.deadLetterQueue!.peek() : undefined), poll, 'poison in the urgent lane DLQ');
    expect(dead.map((message) => message.body)).toEqual([poison]);
    expect(urgentLane.deadLetterQueue!.name).toBe('UrgentIntakeMentionCreated-dlq');
    expect(standardDlq.size).toBe(standardDeadBefore);
    expect(urgentLane.peek()).toEqual([]);
  });
});
