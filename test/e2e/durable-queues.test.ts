/**
 * Local queues survive a restart of the local runtime: an event accepted by PutEvents and still in
 * its intake queue when the runtime stops reaches the inbox after a new runtime starts on the same
 * DATA_DIR.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Notification } from '../../src/core/model/notification.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../src/local/embedded-dynamo.js';
import { startLocalRuntime, type LocalRuntime } from '../../src/local/runtime.js';
import { localSettingsFromEnv } from '../../src/local/settings.js';
import { aMention, putEntry } from '../support/events.js';
import { call } from '../support/http.js';
import { pollUntil } from '../support/poll-until.js';

const poll = { attempts: 100, intervalMs: 50 };

let dataDir: string;
const running: LocalRuntime[] = [];

const start = () => startLocalRuntime({ ...localSettingsFromEnv({}), port: 0, wsPort: 0, dataDir, queueVisibilityTimeoutMs: 200 });

async function inboxOf(runtime: LocalRuntime, userId: string): Promise<Notification[]> {
  const token = await runtime.secrets.issueToken({ tenantId: 'acme', userId });
  const answer = await call(runtime.endpoints.http, 'GET', '/notifications?limit=100', { token });
  expect(answer.status).toBe(200);
  return (answer.body as { items: Notification[] }).items;
}

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'durable-queues-e2e-'));
});

afterEach(async () => {
  for (const runtime of running.splice(0)) await runtime.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('When the local runtime stops before an accepted event is handled', () => {
  it('delivers it to the inbox after a restart on the same DATA_DIR', async () => {
    // Prepare: the mention intake consumer paused (an event source mapping disabled), so the event waits in the queue
    const first = await start();
    running.push(first);
    const intake = first.queues.urgentIntake['mention.created']!;
    intake.setConsumerEnabled(false);
    const events = new EventBridgeClient({ endpoint: first.endpoints.events, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
    const mention = aMention({ recipients: ['r-alice'] });
    const answer = await events.send(new PutEventsCommand({ Entries: [putEntry('mention.created', mention)] }));
    events.destroy();
    expect(answer.FailedEntryCount).toBe(0);
    expect(intake.peek()).toHaveLength(1);
    expect(await inboxOf(first, 'r-alice')).toEqual([]);

    // Act
    await running.pop()!.close();
    const second = await start();
    running.push(second);

    // Assess
    const items = await pollUntil(async () => {
      const inbox = await inboxOf(second, 'r-alice');
      return inbox.length > 0 ? inbox : undefined;
    }, poll, 'r-alice sees the mention after the restart');
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ type: 'mention.created', actor: { id: 'bob' } });
    await pollUntil(() => second.queues.urgentIntake['mention.created']!.peek().length === 0, poll, 'intake drained after the restart');
  });
});
