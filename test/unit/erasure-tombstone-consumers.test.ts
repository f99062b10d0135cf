/**
 * Every consumer that sends to a user honours the erasure tombstone (issue 27): live delivery (jobs
 * and celebrity followers), the release of held pushes and the push channel. An erased recipient
 * gets nothing (no push, no trace); a notification whose author was erased goes to nobody; a
 * tombstone store that cannot be read fails the records closed.
 */
import { describe, expect, it } from 'vitest';
import { LiveDelivery } from '../../src/core/live/live-delivery.js';
import { HeldPushReleaser } from '../../src/core/live/live-gate.js';
import type { ErasedUsers } from '../../src/core/ports/erased-users.js';
import type { TraceEntry } from '../../src/core/ports/trace.js';
import type { DeliveryInput } from '../../src/core/live/delivery-batch.js';
import { ChannelDelivery } from '../../src/core/channels/channel-delivery.js';
import { DEFAULT_PREFERENCES } from '../../src/core/preferences/preferences.js';
import { aRecipientsJob, aRenderedNotification, anOnlineFollowersJob } from '../support/delivery-fixtures.js';
import { alice, bob } from '../support/fixtures.js';
import { FakeDirectory, FakeLedger, FakePusher } from '../support/live-fakes.js';
import { fixedChannelState } from '../support/channel-fakes.js';

const erasedOf = (...userIds: string[]): ErasedUsers & { lookups: number } => {
  const store = {
    lookups: 0,
    async erasedAmong(_tenantId: string, ids: readonly string[]) {
      store.lookups += 1;
      return new Set(ids.filter((id) => userIds.includes(id)));
    },
  };
  return store;
};
const unreadable: ErasedUsers = {
  erasedAmong: async () => {
    throw new Error('table unavailable');
  },
};

function live(erased: ErasedUsers) {
  const directory = new FakeDirectory().connect(alice, 'alicePhone').connect(bob, 'bobPhone');
  const pusher = new FakePusher();
  const traced: TraceEntry[] = [];
  const delivery = new LiveDelivery({ directory, ledger: new FakeLedger(), pusher, isDigestible: () => false, erased, trace: { record: async (entries) => void traced.push(...entries) } });
  return { directory, pusher, traced, delivery };
}

const input = (job: DeliveryInput['job'], recordId = 'r1'): DeliveryInput => ({ recordId, job });

describe('live delivery honours the tombstone', () => {
  it('an erased recipient gets no push and no trace; the other recipient of the same job gets it; one lookup for the batch', async () => {
    const erased = erasedOf(alice.userId);
    const { pusher, traced, delivery } = live(erased);

    const report = await delivery.deliver([input(aRecipientsJob({ recipients: [alice, bob] }))], 'urgent');

    expect(pusher.to('alicePhone')).toEqual([]);
    expect(pusher.to('bobPhone')).toHaveLength(1);
    expect(traced.filter((entry) => entry.userId === alice.userId)).toEqual([]);
    expect(report.failedRecordIds.size).toBe(0);
    expect(erased.lookups).toBe(1);
  });

  it('drops a job whose author was erased: nobody gets their notification', async () => {
    const { pusher, delivery } = live(erasedOf('erin'));

    await delivery.deliver([input(aRecipientsJob({ recipients: [alice, bob], notification: aRenderedNotification({ actor: { id: 'erin' } }) }))], 'urgent');

    expect([...pusher.to('alicePhone'), ...pusher.to('bobPhone')]).toEqual([]);
  });

  it('a celebrity post reaches no erased online follower', async () => {
    const directory = new FakeDirectory().subscribe('cel', [[{ ...alice, connectionId: 'alicePhone' }, { ...bob, connectionId: 'bobPhone' }]]);
    const pusher = new FakePusher();
    const delivery = new LiveDelivery({ directory, ledger: new FakeLedger(), pusher, isDigestible: () => false, erased: erasedOf(bob.userId) });

    await delivery.deliver([input(anOnlineFollowersJob(alice.tenantId, 'cel'))], 'urgent');

    expect(pusher.to('alicePhone')).toHaveLength(1);
    expect(pusher.to('bobPhone')).toEqual([]);
  });

  it('fails every record closed when the tombstones cannot be read', async () => {
    const { pusher, delivery } = live(unreadable);

    const report = await delivery.deliver([input(aRecipientsJob({ recipients: [alice] }))], 'urgent');

    expect(pusher.to('alicePhone')).toEqual([]);
    expect([...report.failedRecordIds]).toEqual(['r1']);
  });

  it('a release for an erased user pushes nothing and takes nothing from the hold', async () => {
    let taken = 0;
    const pusher = new FakePusher();
    const releaser = new HeldPushReleaser({
      gate: { takeRelease: async () => (taken += 1, [{ ...aRenderedNotification(), id: '01KAZ00000000000000000000A', read: false, seen: false }]) },
      directory: new FakeDirectory().connect(alice, 'alicePhone'),
      ledger: new FakeLedger(),
      pusher,
      erased: erasedOf(alice.userId),
    });

    const released = await releaser.release({ v: 1, kind: 'live-release', tenantId: alice.tenantId, userId: alice.userId, releaseAtMs: 1 });

    expect(released).toMatchObject({ notifications: 0, messagesSent: 0, erased: true });
    expect(taken).toBe(0);
    expect(pusher.to('alicePhone')).toEqual([]);
  });
});

describe('the push channel honours the tombstone', () => {
  function channel(erased: ErasedUsers) {
    const published: string[] = [];
    const delivery = new ChannelDelivery({
      channel: 'push',
      preferences: { getPreferences: async (_tenant, users) => new Map(users.map((user) => [user, { status: 'default', preferences: { ...DEFAULT_PREFERENCES, mutedTypes: [], liveDelivery: {} } }])) },
      state: fixedChannelState(() => ({ devices: [{ id: 'd_aaaaaaaaaaaaaaaaaaaaaa', platform: 'apns', token: 't1', endpointArn: 'arn:e1', createdAt: '', updatedAt: '' }], pushConsent: { grantedAt: '2026-11-01T00:00:00Z', version: '1' }, emailAddress: null, emailUnsubscribed: [] })),
      dedup: { claim: async () => true, release: async () => undefined, claimSending: async () => 'claimed' as const, markSent: async () => undefined },
      rate: { admitMessage: async () => 'counted' },
      push: { deleteEndpoint: async () => undefined, publish: async (endpointArn) => (published.push(endpointArn), { status: 'sent', messageId: 'm' }) },
      scheduler: { scheduleOnce: async () => 'created' },
      channelQueueArn: 'arn:aws:sqs:us-east-1:000000000000:PushDelivery',
      signRelease: (release) => JSON.stringify(release),
      typeInfo: () => ({ digestible: false, channels: { push: true } }),
      clock: { nowMs: () => Date.parse('2026-11-25T12:00:00.000Z') },
      settings: { rateLimitPerWindow: 0, parallelism: 4 },
      onEvent: () => undefined,
      erased,
    });
    return { delivery, published };
  }

  it('sends nothing to an erased recipient, nor a notification whose author was erased', async () => {
    const { delivery, published } = channel(erasedOf(alice.userId, 'erin'));

    const report = await delivery.deliver([
      { recordId: 'r1', job: aRecipientsJob({ recipients: [alice] }) },
      { recordId: 'r2', job: aRecipientsJob({ recipients: [bob], notification: aRenderedNotification({ actor: { id: 'erin' } }) }) },
    ]);

    expect(published).toEqual([]);
    expect(report.skipped).toEqual({ erased: 2 });
    expect(report.failedRecordIds.size).toBe(0);
  });

  it('fails the records closed when the tombstones cannot be read', async () => {
    const { delivery, published } = channel(unreadable);

    const report = await delivery.deliver([{ recordId: 'r1', job: aRecipientsJob({ recipients: [alice] }) }]);

    expect(published).toEqual([]);
    expect([...report.failedRecordIds]).toEqual(['r1']);
  });
});
