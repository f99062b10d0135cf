import { describe, expect, it } from 'vitest';
import { Logger } from '@aws-lambda-powertools/logger';
import type { Priority } from '../../src/core/jobs/delivery-job.js';
import type { DeliveryInput, DeliveryReport } from '../../src/core/live/delivery-batch.js';
import type { LiveReleaseMessage } from '../../src/core/live/live-gate.js';
import { createDeliveryHandler } from '../../src/handlers/delivery-handler.js';
import { anSqsEvent, anSqsRecord } from '../support/events.js';

const logger = new Logger({ serviceName: 'test', logLevel: 'ERROR' });

class FakeDelivery {
  readonly batches: DeliveryInput[][] = [];
  async deliver(inputs: readonly DeliveryInput[], _mode: Priority): Promise<DeliveryReport> {
    this.batches.push([...inputs]);
    return { failedRecordIds: new Set(), messagesSent: 0, duplicatesSkipped: 0, goneConnections: 0 };
  }
}

class FakeReleaser {
  readonly released: LiveReleaseMessage[] = [];
  failFor = new Set<string>();
  async release(message: LiveReleaseMessage) {
    if (this.failFor.has(message.userId)) throw new Error('push failed');
    this.released.push(message);
    return { notifications: 1, messagesSent: 1 };
  }
}

const releaseBody = (userId: string) => JSON.stringify({ v: 1, kind: 'live-release', tenantId: 'acme', userId, releaseAtMs: 1_700_000_000_000 });

describe('delivery handler: release messages', () => {
  it('routes release messages to the releaser and reports only failed ones for retry', async () => {
    // Prepare
    const delivery = new FakeDelivery();
    const releaser = new FakeReleaser();
    releaser.failFor.add('bob');
    const handler = createDeliveryHandler({ delivery, releaser, mode: 'urgent', logger });
    const ok = anSqsRecord(releaseBody('alice'), 'm-ok');
    const failing = anSqsRecord(releaseBody('bob'), 'm-fail');

    // Act
    const response = await handler(anSqsEvent([ok, failing]));

    // Assess
    expect(releaser.released.map((message) => message.userId)).toEqual(['alice']);
    expect(delivery.batches).toEqual([[]]);
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'm-fail' }]);
  });

  it('without a releaser a release message is an invalid delivery job (reported, reaches the DLQ)', async () => {
    const handler = createDeliveryHandler({ delivery: new FakeDelivery(), mode: 'urgent', logger });
    const response = await handler(anSqsEvent([anSqsRecord(releaseBody('alice'), 'm-1')]));
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'm-1' }]);
  });
});
