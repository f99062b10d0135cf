import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Logger } from '@aws-lambda-powertools/logger';
import { scheduleName } from '../../src/core/jobs/schedules.js';
import type { OneTimeSchedule } from '../../src/core/ports/scheduler.js';
import { LocalScheduler } from '../../src/local/scheduler/local-scheduler.js';
import { pollUntil } from '../support/poll-until.js';

const logger = new Logger({ serviceName: 'test', logLevel: 'ERROR' });
const target = 'arn:aws:sqs:us-east-1:000000000000:intake-mention-created';

interface Delivery {
  targetArn: string;
  payload: string;
  atMs: number;
}

function aSchedule(key: string, atMs: number): OneTimeSchedule {
  return { name: scheduleName('sendat', 'acme', key), atMs, targetArn: target, payload: JSON.stringify({ key }) };
}

describe('LocalScheduler', () => {
  let dir: string;
  let deliveries: Delivery[];
  const open: LocalScheduler[] = [];
  const record = async (targetArn: string, payload: string) => {
    deliveries.push({ targetArn, payload, atMs: Date.now() });
  };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'local-scheduler-'));
    deliveries = [];
  });

  afterEach(async () => {
    await Promise.all(open.splice(0).map((scheduler) => scheduler.close()));
    await rm(dir, { recursive: true, force: true });
  });

  async function openScheduler(): Promise<LocalScheduler> {
    const scheduler = await LocalScheduler.open({ dir, logger });
    open.push(scheduler);
    return scheduler;
  }

  it('fires at the scheduled time, not before, delivers the payload to the target and deletes the schedule', async () => {
    // Prepare
    const scheduler = await openScheduler();
    scheduler.start(record);
    const atMs = Date.now() + 400;

    // Act
    expect(await scheduler.scheduleOnce(aSchedule('evt-1', atMs))).toBe('created');

    // Assess
    await pollUntil(() => deliveries.length === 1, { attempts: 50, intervalMs: 50 });
    expect(deliveries[0]).toMatchObject({ targetArn: target, payload: JSON.stringify({ key: 'evt-1' }) });
    expect(deliveries[0]!.atMs).toBeGreaterThanOrEqual(atMs);
    await pollUntil(() => scheduler.list().length === 0, { attempts: 20, intervalMs: 25 });
  });

  it('answers already_scheduled for an existing name and fires once', async () => {
    // Prepare
    const scheduler = await openScheduler();
    scheduler.start(record);
    const schedule = aSchedule('evt-2', Date.now() + 200);

    // Act
    const outcomes = [await scheduler.scheduleOnce(schedule), await scheduler.scheduleOnce(schedule)];

    // Assess
    expect(outcomes).toEqual(['created', 'already_scheduled']);
    await pollUntil(() => deliveries.length === 1, { attempts: 40, intervalMs: 25 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(deliveries).toHaveLength(1);
  });

  it('survives a restart: a schedule acknowledged before close fires after the next open', async () => {
    // Prepare
    const first = await openScheduler();
    first.start(record);
    await first.scheduleOnce(aSchedule('evt-3', Date.now() + 600));
    await first.close();
    expect(JSON.parse(await readFile(join(dir, 'schedules.json'), 'utf8'))).toHaveLength(1);

    // Act
    const second = await openScheduler();
    second.start(record);

    // Assess
    await pollUntil(() => deliveries.length === 1, { attempts: 60, intervalMs: 50 });
    expect(deliveries[0]!.payload).toBe(JSON.stringify({ key: 'evt-3' }));
  });

  it('fires a schedule that came due while it was stopped as soon as it starts', async () => {
    // Prepare
    const first = await openScheduler();
    await first.scheduleOnce(aSchedule('evt-4', Date.now() + 50));
    await first.close();
    await new Promise((resolve) => setTimeout(resolve, 100));

    // Act
    const second = await openScheduler();
    second.start(record);

    // Assess
    await pollUntil(() => deliveries.length === 1, { attempts: 40, intervalMs: 25 });
  });

  it('retries a delivery the target refused and keeps the schedule until it succeeds', async () => {
    // Prepare
    const scheduler = await openScheduler();
    let refusals = 1;
    scheduler.start(async (targetArn, payload) => {
      if (refusals-- > 0) throw new Error('queue unavailable');
      await record(targetArn, payload);
    });

    // Act
    await scheduler.scheduleOnce(aSchedule('evt-5', Date.now()));

    // Assess
    await pollUntil(() => deliveries.length === 1, { attempts: 60, intervalMs: 50 });
    await pollUntil(() => scheduler.list().length === 0, { attempts: 20, intervalMs: 25 });
  });

  it('does not fire a delivered schedule again after a restart', async () => {
    // Prepare
    const first = await openScheduler();
    first.start(record);
    await first.scheduleOnce(aSchedule('once', Date.now()));
    await pollUntil(() => deliveries.length === 1 && first.list().length === 0, { attempts: 40, intervalMs: 25 }, 'first firing');
    await first.close();

    // Act
    const second = await openScheduler();
    second.start(record);
    await new Promise((resolve) => setTimeout(resolve, 150));

    // Assess
    expect(second.list()).toEqual([]);
    expect(deliveries).toHaveLength(1);
  });

  it('keeps a schedule whose target keeps refusing across a restart and fires it once the target accepts', async () => {
    // Prepare
    const first = await openScheduler();
    let refusals = 0;
    first.start(async () => {
      refusals += 1;
      throw new Error('queue unavailable');
    });
    await first.scheduleOnce(aSchedule('refused', Date.now()));
    await pollUntil(() => refusals >= 1, { attempts: 40, intervalMs: 25 }, 'a refusal');
    await first.close();

    // Act
    const second = await openScheduler();
    second.start(record);

    // Assess
    await pollUntil(() => deliveries.length === 1 && second.list().length === 0, { attempts: 60, intervalMs: 25 }, 'fired after restart');
    expect(deliveries.map((delivery) => delivery.payload)).toEqual([JSON.stringify({ key: 'refused' })]);
  });
});
