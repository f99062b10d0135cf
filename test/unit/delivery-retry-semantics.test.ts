/**
 * Retries of live delivery (ARCHITECTURE.md "Delivery semantics"): a failed push retries only its
 * record, a retry pushes nothing twice, a digest is not duplicated, held pushes are released once.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { Logger } from '@aws-lambda-powertools/logger';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { DeliveryJob } from '../../src/core/jobs/delivery-job.js';
import { LiveDelivery } from '../../src/core/live/live-delivery.js';
import { HeldPushReleaser, type LiveReleaseMessage } from '../../src/core/live/live-gate.js';
import type { DigestMessage, LiveMessage } from '../../src/core/live/live-messages.js';
import type { Notification } from '../../src/core/model/notification.js';
import { createDeliveryHandler } from '../../src/handlers/delivery-handler.js';
import { aDeliveryEvent, aRecipientsJob, aRenderedNotification } from '../support/delivery-fixtures.js';
import { anSqsEvent } from '../support/events.js';
import { alice, bob } from '../support/fixtures.js';
import { aLiveNotification } from '../support/live-gate-fixtures.js';
import { FakeDirectory, FakeLedger, FakePusher } from '../support/live-fakes.js';

const logger = new Logger({ serviceName: 'test', logLevel: 'SILENT' });
const comment = () => aRenderedNotification({ type: 'comment.created', body: 'nice' });
const carol = { tenantId: 'acme', userId: 'carol' };

let directory: FakeDirectory;
let ledger: FakeLedger;
let pusher: FakePusher;

beforeEach(() => {
  directory = new FakeDirectory().connect(alice, 'alicePhone', 'aliceLaptop').connect(bob, 'bobPhone').connect(carol, 'carolPhone');
  ledger = new FakeLedger();
  pusher = new FakePusher();
});

function handlerFor(mode: 'urgent' | 'info') {
  const delivery = new LiveDelivery({ directory, ledger, pusher, isDigestible: (type) => type === 'comment.created' });
  return createDeliveryHandler({ delivery, mode, logger });
}

/** The records of `event` the response names as failed: what SQS redelivers. */
function redelivered(event: SQSEvent, response: SQSBatchResponse): SQSEvent {
  const failed = new Set(response.batchItemFailures.map((failure) => failure.itemIdentifier));
  return anSqsEvent(event.Records.filter((record) => failed.has(record.messageId)));
}

const notificationIdsTo = (connectionId: string): string[] =>
  pusher.to(connectionId).flatMap((message: LiveMessage) => (message.type === 'notification' ? [message.notification.id] : message.type === 'digest' ? message.ids : []));

describe('urgent delivery: one connection answers 500', () => {
  it('retries only the records with a push to that connection; the retry pushes nothing twice', async () => {
    // Prepare: a batch of 10 jobs; job 3 also goes to bob, whose connection fails once.
    const handler = handlerFor('urgent');
    const jobs: DeliveryJob[] = Array.from({ length: 10 }, (_, i) => aRecipientsJob({ recipients: i === 3 ? [alice, bob] : [i % 2 === 0 ? alice : carol] }));
    const event = aDeliveryEvent(jobs);
    pusher.failing.add('bobPhone');

    // Act
    const first = await handler(event);
    pusher.failing.clear();
    const retry = await handler(redelivered(event, first));

    // Assess
    expect(first.batchItemFailures).toEqual([{ itemIdentifier: event.Records[3]!.messageId }]);
    expect(retry).toEqual({ batchItemFailures: [] });
    for (const connectionId of ['alicePhone', 'aliceLaptop', 'carolPhone', 'bobPhone']) {
      const ids = notificationIdsTo(connectionId);
      expect(new Set(ids).size, connectionId).toBe(ids.length);
    }
    expect(notificationIdsTo('alicePhone')).toHaveLength(6);
    expect(notificationIdsTo('carolPhone')).toHaveLength(4);
    expect(notificationIdsTo('bobPhone')).toHaveLength(1);
  });
});

describe('info digest', () => {
  it('a batch spanning two users yields one digest per user connection', async () => {
    // Prepare
    const handler = handlerFor('info');
    const event = aDeliveryEvent([
      ...[1, 2, 3].map(() => aRecipientsJob({ recipients: [alice], priority: 'info', notification: comment() })),
      ...[1, 2].map(() => aRecipientsJob({ recipients: [bob], priority: 'info', notification: comment() })),
    ]);

    // Act
    const response = await handler(event);

    // Assess
    expect(response).toEqual({ batchItemFailures: [] });
    for (const connectionId of ['alicePhone', 'aliceLaptop']) expect(pusher.to(connectionId)).toEqual([expect.objectContaining({ type: 'digest', count: 3 })]);
    expect(pusher.to('bobPhone')).toEqual([expect.objectContaining({ type: 'digest', count: 2 })]);
  });

  it("one user's failed digest leaves the others' digests sent once; its claims are released and the retry sends it once", async () => {
    // Prepare: one job goes to alice AND bob, so its record fails with bob's digest.
    const handler = handlerFor('info');
    const event = aDeliveryEvent([
      aRecipientsJob({ recipients: [alice], priority: 'info', notification: comment() }),
      aRecipientsJob({ recipients: [alice, bob], priority: 'info', notification: comment() }),
      aRecipientsJob({ recipients: [bob], priority: 'info', notification: comment() }),
    ]);
    pusher.failing.add('bobPhone');

    // Act
    const first = await handler(event);
    const releasedAfterFailure = [...ledger.released];
    pusher.failing.clear();
    const retry = await handler(redelivered(event, first));

    // Assess
    expect(first.batchItemFailures.map((failure) => failure.itemIdentifier).sort()).toEqual([event.Records[1]!.messageId, event.Records[2]!.messageId].sort());
    expect(releasedAfterFailure.every((key) => key.endsWith('/bobPhone'))).toBe(true);
    expect(releasedAfterFailure).toHaveLength(2);
    expect(retry).toEqual({ batchItemFailures: [] });
    expect(pusher.to('alicePhone')).toEqual([expect.objectContaining({ type: 'digest', count: 2 })]);
    expect(pusher.to('bobPhone')).toEqual([expect.objectContaining({ type: 'digest', count: 2 })]);
    expect((pusher.to('bobPhone')[0] as DigestMessage).ids).toHaveLength(2);
  });
});

describe('release of held pushes', () => {
  const releaseAtMs = Date.UTC(2026, 0, 1, 7);
  const message: LiveReleaseMessage = { v: 1, kind: 'live-release', tenantId: alice.tenantId, userId: alice.userId, releaseAtMs };
  const held: Notification[] = [1, 2].map((i) => aLiveNotification(alice, releaseAtMs - i * 60_000, { eventId: `held-${i}` }));
  /** takeRelease answers the held pushes again on every redelivery, as the hold store does. */
  const gate = { takeRelease: async () => held };

  it('pushes nothing to a user who disconnected meanwhile, and once to the connection of a user who reconnected, even if the release is redelivered', async () => {
    // Prepare
    const releaser = new HeldPushReleaser({ gate, directory: new FakeDirectory(), ledger, pusher });
    const reconnected = new HeldPushReleaser({ gate, directory: new FakeDirectory().connect(alice, 'aliceNewPhone'), ledger, pusher });

    // Act
    const offline = await releaser.release(message);
    const online = await reconnected.release(message);
    const again = await reconnected.release(message);

    // Assess
    expect(offline).toEqual({ notifications: 2, messagesSent: 0 });
    expect(online.messagesSent).toBe(1);
    expect(again.messagesSent).toBe(0);
    expect(pusher.to('aliceNewPhone')).toEqual([expect.objectContaining({ type: 'digest', count: 2 })]);
  });

  it('a release whose push failed on one connection is retried without pushing the others twice', async () => {
    // Prepare
    const releaser = new HeldPushReleaser({ gate, directory, ledger, pusher });
    pusher.failing.add('aliceLaptop');

    // Act
    const first = await releaser.release(message).catch((error: unknown) => error);
    pusher.failing.clear();
    const retry = await releaser.release(message);

    // Assess
    expect(first).toBeInstanceOf(Error);
    expect(retry.messagesSent).toBe(1);
    expect(pusher.to('alicePhone')).toHaveLength(1);
    expect(pusher.to('aliceLaptop')).toEqual([expect.objectContaining({ type: 'digest', count: 2 })]);
  });

  it('a release whose ledger claim failed mid-way does not keep the earlier claims: the retry pushes every held notification', async () => {
    // Prepare: the second claim for the laptop fails once.
    let failures = 1;
    const flakyLedger = {
      claim: async (notificationId: string, connectionId: string) => {
        if (connectionId === 'aliceLaptop' && notificationId === held[1]!.id && failures > 0) {
          failures -= 1;
          throw new Error('throttled');
        }
        return ledger.claim(notificationId, connectionId);
      },
      release: (notificationId: string, connectionId: string) => ledger.release(notificationId, connectionId),
    };
    const releaser = new HeldPushReleaser({ gate, directory, ledger: flakyLedger, pusher });

    // Act
    const first = await releaser.release(message).catch((error: unknown) => error);
    const retry = await releaser.release(message);

    // Assess
    expect(first).toBeInstanceOf(Error);
    expect(retry.messagesSent).toBe(1);
    expect(notificationIdsTo('alicePhone').sort()).toEqual(held.map((notification) => notification.id).sort());
    expect(notificationIdsTo('aliceLaptop').sort()).toEqual(held.map((notification) => notification.id).sort());
  });
});
