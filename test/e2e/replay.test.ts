/**
 * `npm run replay` against the local runtime: the bus archives what it accepts, a dry run counts a
 * time range, StartReplay / DescribeReplay (the real SDK client) put the range back on the bus, and
 * replaying twice changes nothing (event ids, idempotency, deterministic notification ids).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StartReplayCommand, type EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalRuntime, type LocalRuntime } from '../../src/local/runtime.js';
import { localSettingsFromEnv } from '../../src/local/settings.js';
import { countLocalArchive, localArchiveArns, startReplay } from '../../src/ops/replay.js';
import { aMention } from '../support/events.js';
import { pollUntil } from '../support/poll-until.js';
import { eventsClientOf, inboxOf, pipelineDrained, publish } from '../support/schedules-e2e.js';

const POLL = { attempts: 400, intervalMs: 25 };
let dataDir: string;
let runtime: LocalRuntime;
let events: EventBridgeClient;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'replay-e2e-'));
  runtime = await startLocalRuntime({ ...localSettingsFromEnv({}), port: 0, wsPort: 0, dataDir });
  events = eventsClientOf(runtime);
});

afterAll(async () => {
  events?.destroy();
  await runtime?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('replay from the local archive', () => {
  it('counts a range on a dry run, replays it through StartReplay, and twice is the same as once', async () => {
    // Prepare
    const fromMs = Date.now() - 1;
    await publish(events, 'mention.created', aMention({ recipients: ['rita'] }), aMention({ recipients: ['rita', 'rob'] }));
    await pipelineDrained(runtime, POLL);
    const toMs = Date.now() + 1;
    const rita = { tenantId: 'acme', userId: 'rita' };
    const before = await pollUntil(async () => ((await inboxOf(runtime, rita)).length === 2 ? inboxOf(runtime, rita) : undefined), POLL, 'two items');
    const arns = localArchiveArns(runtime.endpoints.eventBusName);

    // Act
    const dryRun = countLocalArchive(dataDir, { fromMs, toMs });
    const first = await startReplay(events, arns, { fromMs, toMs }, 'replay-once', async () => undefined);
    await pipelineDrained(runtime, POLL);
    const second = await startReplay(events, arns, { fromMs, toMs }, 'replay-twice', async () => undefined);
    await pipelineDrained(runtime, POLL);
    const reused = events.send(new StartReplayCommand({ ReplayName: 'replay-once', EventSourceArn: arns.archiveArn, EventStartTime: new Date(fromMs), EventEndTime: new Date(toMs), Destination: { Arn: arns.busArn } }));

    // Assess
    expect(dryRun).toEqual({ 'mention.created': 2 });
    expect([first.state, second.state]).toEqual(['COMPLETED', 'COMPLETED']);
    expect(first.reason).toBe('replayed 2 events');
    await expect(reused).rejects.toMatchObject({ name: 'ResourceAlreadyExistsException' });
    expect(await inboxOf(runtime, rita)).toEqual(before);
    expect(await inboxOf(runtime, { tenantId: 'acme', userId: 'rob' })).toHaveLength(1);
    expect(countLocalArchive(dataDir, { fromMs: toMs, toMs: Date.now() + 1 })).toEqual({}); // replays are not archived again
  });

  it('a replay cut off by a runtime restart and run again (same name, which the restarted runtime no longer knows) notifies nobody twice', async () => {
    // Prepare
    const fromMs = Date.now() - 1;
    await publish(events, 'mention.created', aMention({ recipients: ['ines'] }), aMention({ recipients: ['ines', 'ivo'] }));
    await pipelineDrained(runtime, POLL);
    const toMs = Date.now() + 1;
    const ines = { tenantId: 'acme', userId: 'ines' };
    const before = await pollUntil(async () => ((await inboxOf(runtime, ines)).length === 2 ? inboxOf(runtime, ines) : undefined), POLL, 'two items');

    // Act: the replay's events are on the intake queue when the runtime stops, before the fan-out drains them.
    await startReplay(events, localArchiveArns(runtime.endpoints.eventBusName), { fromMs, toMs }, 'cut-off-replay', async () => undefined);
    events.destroy();
    await runtime.close();
    runtime = await startLocalRuntime({ ...localSettingsFromEnv({}), port: 0, wsPort: 0, dataDir });
    events = eventsClientOf(runtime);
    const again = await startReplay(events, localArchiveArns(runtime.endpoints.eventBusName), { fromMs, toMs }, 'cut-off-replay', async () => undefined);
    await pipelineDrained(runtime, POLL);

    // Assess
    expect(again.state).toBe('COMPLETED');
    expect(await inboxOf(runtime, ines)).toEqual(before);
    expect(await inboxOf(runtime, { tenantId: 'acme', userId: 'ivo' })).toHaveLength(1);
  });
});
