import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Logger } from '@aws-lambda-powertools/logger';
import { scheduleName, type OneTimeSchedule } from '../../src/core/schedules.js';
import { LocalScheduler } from '../../src/local/local-scheduler.js';
import { pollUntil } from '../support/poll-until.js';

const logger = new Logger({ serviceName: 'test', logLevel: 'SILENT' });
const target = 'arn:aws:sqs:us-east-1:000000000000:UrgentDelivery';

function aSchedule(key: string, atMs: number): OneTimeSchedule {
  return { name: scheduleName('hold', 'acme', key), atMs, targetArn: target, payload: JSON.stringify({ key }) };
}

describe('LocalScheduler: exactly one firing across restarts', () => {
  let dir: string;
  let fired: string[];
  const open: LocalScheduler[] = [];
  const record = async (_targetArn: string, payload: string) => {
    fired.push(payload);
  };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'local-scheduler-once-'));
    fired = [];
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

  it('does not fire a delivered schedule again after a restart', async () => {
    // Prepare
    const first = await openScheduler();
    first.start(record);
    await first.scheduleOnce(aSchedule('once', Date.now()));
    await pollUntil(() => fired.length === 1 && first.list().length === 0, { attempts: 40, intervalMs: 25 }, 'first firing');
    await first.close();

    // Act
    const second = await openScheduler();
    second.start(record);
    await new Promise((resolve) => setTimeout(resolve, 150));

    // Assess
    expect(second.list()).toEqual([]);
    expect(fired).toHaveLength(1);
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
    await pollUntil(() => fired.length === 1 && second.list().length === 0, { attempts: 60, intervalMs: 25 }, 'fired after restart');
    expect(fired).toEqual([JSON.stringify({ key: 'refused' })]);
  });
});
