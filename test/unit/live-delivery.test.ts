import { beforeEach, describe, expect, it } from 'vitest';
import { Logger } from '@aws-lambda-powertools/logger';
import { LiveDelivery } from '../../src/core/live/live-delivery.js';
import type { DeliveryJob } from '../../src/core/jobs/delivery-job.js';
import { createDeliveryHandler } from '../../src/handlers/delivery-handler.js';
import { aDeliveryEvent, aRecipientsJob, aRenderedNotification, anOnlineFollowersJob } from '../support/delivery-fixtures.js';
import { alice, bob } from '../support/fixtures.js';
import { FakeDirectory, FakeLedger, FakePusher } from '../support/live-fakes.js';
import type { DeliveryInput } from '../../src/core/live/delivery-batch.js';

let directory: FakeDirectory;
let ledger: FakeLedger;
let pusher: FakePusher;
let delivery: LiveDelivery;

const inputs = (...jobs: DeliveryJob[]): DeliveryInput[] => jobs.map((job, i) => ({ recordId: `record-${i}`, job }));
const comment = () => aRenderedNotification({ type: 'comment.created', body: 'nice' });

beforeEach(() => {
  directory = new FakeDirectory().connect(alice, 'alicePhone', 'aliceLaptop').connect(bob, 'bobPhone');
  ledger = new FakeLedger();
  pusher = new FakePusher();
  delivery = new LiveDelivery({ directory, ledger, pusher, isDigestible: (type) => type === 'comment.created' });
});

describe('LiveDelivery, urgent', () => {
  it('pushes each notification once to every connection of every recipient with one lookup for the batch', async () => {
    // Prepare
    const jobs = inputs(aRecipientsJob({ recipients: [alice, bob] }), aRecipientsJob({ recipients: [alice] }));

    // Act
    const report = await delivery.deliver(jobs, 'urgent');

    // Assess
    expect(directory.lookups).toHaveLength(1);
    expect(pusher.to('alicePhone').map((message) => message.type)).toEqual(['notification', 'notification']);
    expect(pusher.to('aliceLaptop')).toEqual(pusher.to('alicePhone'));
    expect(pusher.to('bobPhone')).toHaveLength(1);
    expect(report).toMatchObject({ messagesSent: 5, duplicatesSkipped: 0, goneConnections: 0 });
    expect(report.failedRecordIds.size).toBe(0);
  });

  it('reads the connections while the erasure tombstones are read (one round trip on the push path), and pushes nothing to an erased recipient', async () => {
    // Prepare: carol (erased) is a recipient; the tombstone read waits until the connection lookup has started
    const carol = { tenantId: alice.tenantId, userId: 'carol' };
    directory.connect(carol, 'carolPhone');
    let lookupStarted!: () => void;
    const started = new Promise<void>((resolve) => (lookupStarted = resolve));
    const lookup = directory.connectionsOf.bind(directory);
    directory.connectionsOf = async (users) => {
      lookupStarted();
      return lookup(users);
    };
    const erased = {
      async erasedAmong(_tenantId: string, userIds: readonly string[]) {
        await started;
        return new Set(userIds.filter((userId) => userId === carol.userId));
      },
    };
    const withErasure = new LiveDelivery({ directory, ledger, pusher, erased, isDigestible: () => false });

    // Act
    const report = await withErasure.deliver(inputs(aRecipientsJob({ recipients: [alice, carol] })), 'urgent');

    // Assess
    expect(report.messagesSent).toBe(2);
    expect(pusher.to('alicePhone')).toHaveLength(1);
    expect(pusher.to('carolPhone')).toHaveLength(0);
  });

  it('does not push a redelivered job twice to the same connection', async () => {
    const job = aRecipientsJob({ recipients: [alice] });

    await delivery.deliver(inputs(job), 'urgent');
    const again = await delivery.deliver(inputs(job, job), 'urgent');

    expect(pusher.to('alicePhone')).toHaveLength(1);
    expect(again).toMatchObject({ messagesSent: 0, duplicatesSkipped: 4 });
  });

  it('removes a connection answered 410 Gone and still delivers to the others', async () => {
    pusher.gone.add('alicePhone');

    const report = await delivery.deliver(inputs(aRecipientsJob({ recipients: [alice] })), 'urgent');

    expect(directory.removed).toEqual(['alicePhone']);
    expect(pusher.to('aliceLaptop')).toHaveLength(1);
    expect(report.failedRecordIds.size).toBe(0);
  });

  it('fails only the record whose push failed, releasing its claim for the retry', async () => {
    // Prepare
    pusher.failing.add('bobPhone');
    const [toAlice, toBob] = [aRecipientsJob({ recipients: [alice] }), aRecipientsJob({ recipients: [bob] })];

    // Act
    const report = await delivery.deliver(inputs(toAlice, toBob), 'urgent');
    pusher.failing.clear();
    const retry = await delivery.deliver([{ recordId: 'record-1', job: toBob }], 'urgent');

    // Assess
    expect([...report.failedRecordIds]).toEqual(['record-1']);
    expect(ledger.released).toHaveLength(1);
    expect(retry.messagesSent).toBe(1);
    expect(pusher.to('bobPhone')).toHaveLength(1);
  });

  it('fails closed when the ledger cannot record the delivery: no push, record retried', async () => {
    ledger.failClaims = true;

    const report = await delivery.deliver(inputs(aRecipientsJob({ recipients: [alice] })), 'urgent');

    expect(pusher.posts).toEqual([]);
    expect([...report.failedRecordIds]).toEqual(['record-0']);
  });

  it('fails every recipient record of the batch when the presence lookup fails', async () => {
    directory.failLookups = true;

    const report = await delivery.deliver(inputs(aRecipientsJob({ recipients: [alice] }), aRecipientsJob({ recipients: [bob] })), 'urgent');

    expect([...report.failedRecordIds].sort()).toEqual(['record-0', 'record-1']);
  });
});

describe('LiveDelivery, info', () => {
  it('collapses several digestible notifications for one user into one digest per connection', async () => {
    const jobs = inputs(...[1, 2, 3].map(() => aRecipientsJob({ recipients: [alice], priority: 'info', notification: comment() })));

    await delivery.deliver(jobs, 'info');

    expect(pusher.to('alicePhone')).toHaveLength(1);
    expect(pusher.to('alicePhone')[0]).toMatchObject({ type: 'digest', count: 3 });
    expect(pusher.to('aliceLaptop')).toEqual(pusher.to('alicePhone'));
  });

  it('keeps a single info notification and non-digestible types as plain notifications', async () => {
    const jobs = inputs(
      aRecipientsJob({ recipients: [bob], priority: 'info', notification: comment() }),
      aRecipientsJob({ recipients: [alice], priority: 'info', notification: aRenderedNotification({ type: 'post.published' }) }),
    );

    await delivery.deliver(jobs, 'info');

    expect(pusher.to('bobPhone').map((message) => message.type)).toEqual(['notification']);
    expect(pusher.to('alicePhone').map((message) => message.type)).toEqual(['notification']);
  });
});

describe('LiveDelivery, celebrity posts', () => {
  it('pushes to the online subscribers page by page, not to offline followers', async () => {
    // Prepare
    directory.subscribe('star', [
      [{ ...alice, connectionId: 'alicePhone' }],
      [{ ...bob, connectionId: 'bobPhone' }],
    ]);

    // Act
    const report = await delivery.deliver(inputs(anOnlineFollowersJob('acme', 'star')), 'info');

    // Assess
    expect(report.messagesSent).toBe(2);
    expect(pusher.to('aliceLaptop')).toEqual([]);
    expect(pusher.to('bobPhone')[0]).toMatchObject({ type: 'notification', notification: { type: 'post.published' } });
  });
});

describe('delivery handler', () => {
  it('answers a partial batch response naming the invalid and the failed records only', async () => {
    // Prepare
    pusher.failing.add('bobPhone');
    const handler = createDeliveryHandler({ delivery, mode: 'urgent', logger: new Logger({ logLevel: 'SILENT' }) });
    const event = aDeliveryEvent([aRecipientsJob({ recipients: [alice] }), '{"v":1,"tenantId":"acme"}', aRecipientsJob({ recipients: [bob] })]);

    // Act
    const response = await handler(event);

    // Assess
    expect(response.batchItemFailures.map((failure) => failure.itemIdentifier)).toEqual([event.Records[1]!.messageId, event.Records[2]!.messageId]);
    expect(pusher.to('alicePhone')).toHaveLength(1);
  });

  it('answers every record when all fail instead of throwing', async () => {
    const handler = createDeliveryHandler({ delivery, mode: 'urgent', logger: new Logger({ logLevel: 'SILENT' }) });

    const response = await handler(aDeliveryEvent(['not json']));

    expect(response.batchItemFailures).toHaveLength(1);
  });
});

describe('LiveDelivery, retraction jobs', () => {
  const retraction = (job: DeliveryJob): DeliveryJob => ({ ...job, retracted: { eventId: job.eventId, arrivalMs: Date.parse(job.notification.createdAt) } });

  it('pushes `retracted` with each recipient\'s id even after the original was delivered (no ledger claim), and a redelivery again', async () => {
    const original = aRecipientsJob({ recipients: [alice, bob] });
    await delivery.deliver(inputs(original), 'urgent');

    const report = await delivery.deliver(inputs(retraction(original)), 'urgent');
    await delivery.deliver(inputs(retraction(original)), 'urgent');

    const ids = original.target.kind === 'recipients' ? original.target.recipients.map((recipient) => recipient.notificationId) : [];
    expect(pusher.to('alicePhone').map((message) => message.type)).toEqual(['notification', 'retracted', 'retracted']);
    expect(pusher.to('aliceLaptop')[1]).toEqual({ type: 'retracted', ids: [ids[0]] });
    expect(pusher.to('bobPhone')[1]).toEqual({ type: 'retracted', ids: [ids[1]] });
    expect(report).toMatchObject({ messagesSent: 3 });
    expect(report.failedRecordIds.size).toBe(0);
  });

  it('is never held by the gate, and a failed post fails only its record', async () => {
    const gated = new LiveDelivery({ directory, ledger, pusher, isDigestible: () => false, gate: { admit: async (candidates) => candidates.map(() => 'held' as const) } });
    pusher.failing.add('bobPhone');

    const report = await gated.deliver(inputs(retraction(aRecipientsJob({ recipients: [alice] })), retraction(aRecipientsJob({ recipients: [bob] }))), 'urgent');

    expect(pusher.to('alicePhone').map((message) => message.type)).toEqual(['retracted']);
    expect([...report.failedRecordIds]).toEqual(['record-1']);
  });

  it('pushes a celebrity\'s online followers the feed id and their own id of the event', async () => {
    directory.subscribe('star', [[{ ...alice, connectionId: 'alicePhone' }], [{ ...bob, connectionId: 'bobPhone' }]]);
    const job = retraction(anOnlineFollowersJob('acme', 'star', { priority: 'urgent' }));

    await delivery.deliver(inputs(job), 'urgent');

    const feedId = job.target.kind === 'onlineFollowers' ? job.target.notificationId : '';
    expect(pusher.to('alicePhone')).toEqual([{ type: 'retracted', ids: [feedId, expect.any(String)] }]);
    expect(pusher.to('bobPhone')).toHaveLength(1);
  });
});
