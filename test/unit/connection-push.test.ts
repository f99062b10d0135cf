/**
 * The one push routine (claim -> post -> 410 -> give back), in both failure scopes: per message
 * (live delivery: only the failed record is retried) and per connection (a release is retried whole).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { postOrRemoveStale, pushToConnection } from '../../src/core/live/connection-push.js';
import type { ConnectionTarget } from '../../src/core/ports/live.js';
import type { PendingPush } from '../../src/core/live/live-messages.js';
import { alice } from '../support/fixtures.js';
import { aLiveNotification } from '../support/live-gate-fixtures.js';
import { FakeDirectory, FakeLedger, FakePusher } from '../support/live-fakes.js';

const phone: ConnectionTarget = { ...alice, connectionId: 'alicePhone' };
const T = Date.UTC(2026, 0, 1, 12);
const urgent = (i: number): PendingPush<string> => ({ notification: aLiveNotification(alice, T + i * 1000, { eventId: `u${i}` }), digestible: false, tag: `record-${i}` });
const digestible = (i: number): PendingPush<string> => ({ ...urgent(i), digestible: true });

let directory: FakeDirectory;
let ledger: FakeLedger;
let pusher: FakePusher;

beforeEach(() => {
  directory = new FakeDirectory().connect(alice, 'alicePhone');
  ledger = new FakeLedger();
  pusher = new FakePusher();
});

describe('pushToConnection', () => {
  it('claims every push, posts one message each (a digest for several digestible) and skips pairs already claimed', async () => {
    // Prepare
    await ledger.claim(urgent(1).notification.id, 'alicePhone');

    // Act
    const result = await pushToConnection({ ledger, pusher, directory }, phone, [urgent(1), urgent(2), digestible(3), digestible(4)], 'message');

    // Assess
    expect(result).toEqual({ messagesSent: 2, duplicatesSkipped: 1, gone: false, failed: [], errors: [] });
    expect(pusher.to('alicePhone').map((message) => message.type)).toEqual(['notification', 'digest']);
  });

  it("message scope: a failed claim drops only that push; a failed post gives back only that message's claims", async () => {
    // Prepare: the second claim throws; the posts all fail.
    const flaky = { claim: async (id: string, connectionId: string) => (id === urgent(2).notification.id ? Promise.reject(new Error('throttled')) : ledger.claim(id, connectionId)), release: ledger.release.bind(ledger) };
    pusher.failing.add('alicePhone');

    // Act
    const result = await pushToConnection({ ledger: flaky, pusher, directory }, phone, [urgent(1), urgent(2), urgent(3)], 'message');

    // Assess
    expect(result.failed.map((push) => push.tag).sort()).toEqual(['record-1', 'record-2', 'record-3']);
    expect(ledger.released.sort()).toEqual([urgent(1), urgent(3)].map((push) => `${push.notification.id}/alicePhone`).sort());
  });

  it('connection scope: a failed claim gives back the claims already taken and posts nothing', async () => {
    // Prepare
    const flaky = { claim: async (id: string, connectionId: string) => (id === digestible(2).notification.id ? Promise.reject(new Error('throttled')) : ledger.claim(id, connectionId)), release: ledger.release.bind(ledger) };

    // Act
    const result = await pushToConnection({ ledger: flaky, pusher, directory }, phone, [digestible(1), digestible(2), digestible(3)], 'connection');

    // Assess
    expect(result.errors).toHaveLength(1);
    expect(result.failed).toHaveLength(3);
    expect(ledger.claimed.size).toBe(0);
    expect(pusher.posts).toEqual([]);
  });

  it('410 Gone removes the connection and keeps the claims; a failed removal is retried only in connection scope', async () => {
    // Prepare
    pusher.gone.add('alicePhone');
    const failingDirectory = { removeConnection: async () => Promise.reject(new Error('cleanup failed')) };

    // Act
    const gone = await pushToConnection({ ledger, pusher, directory }, phone, [urgent(1)], 'message');
    const cleanupFailedPerMessage = await pushToConnection({ ledger: new FakeLedger(), pusher, directory: failingDirectory }, phone, [urgent(2)], 'message');
    const perConnectionLedger = new FakeLedger();
    const cleanupFailedPerConnection = await pushToConnection({ ledger: perConnectionLedger, pusher, directory: failingDirectory }, phone, [urgent(3)], 'connection');

    // Assess
    expect(gone).toMatchObject({ gone: true, messagesSent: 0, failed: [] });
    expect(directory.removed).toEqual(['alicePhone']);
    expect(ledger.claimed.size).toBe(1);
    expect(cleanupFailedPerMessage).toMatchObject({ gone: true, failed: [] });
    expect(cleanupFailedPerConnection.failed).toHaveLength(1);
    expect(perConnectionLedger.claimed.size).toBe(0);
  });
});

describe('postOrRemoveStale', () => {
  it('posts, and removes the connection on 410 Gone', async () => {
    // Prepare
    pusher.gone.add('alicePhone');

    // Act
    const outcome = await postOrRemoveStale({ pusher, directory }, phone, '{"type":"pong"}');

    // Assess
    expect(outcome).toBe('gone');
    expect(directory.removed).toEqual(['alicePhone']);
  });
});
