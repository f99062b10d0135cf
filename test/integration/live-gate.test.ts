import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { keys } from '../../src/core/model/keys.js';
import { LiveHoldRepository } from '../../src/adapters/dynamo/live-hold-repository.js';
import { PreferencesRepository } from '../../src/adapters/dynamo/preferences-repository.js';
import { FAIL_CLOSED_RETRY_MS } from '../../src/core/preferences/delivery-policy.js';
import { HeldPushReleaser, LiveDeliveryGate, liveReleaseMessageSchema, parseLiveReleaseMessage, type LiveReleaseMessage } from '../../src/core/live/live-gate.js';
import type { ConnectionTarget, PostOutcome } from '../../src/core/ports/live.js';
import type { PreferencesLookup } from '../../src/core/preferences/preferences.js';
import type { PreferencesReader } from '../../src/core/preferences/store.js';
import type { UserRef } from '../../src/core/model/user.js';
import { ManualClock, startTestDynamo, type TestDynamo } from '../support/dynamo.js';
import { aCandidate as candidateOf, RecordingScheduler } from '../support/live-gate-fixtures.js';
import type { GateCandidate } from '../../src/core/live/live-gate.js';
import type { StoredNotification } from '../../src/core/model/notification.js';
import { aPreferences, utc } from '../support/preferences-fixtures.js';

const RELEASE_QUEUE = 'arn:aws:sqs:us-east-1:000000000000:UrgentDelivery';
let db: TestDynamo;
let preferences: PreferencesRepository;
let holds: LiveHoldRepository;
let clock: ManualClock;
let scheduler: RecordingScheduler;
let userSeq = 0;
let user: UserRef;

/** The inbox items of the candidates made here: a hold keeps references, the release reads them back. */
const inboxItems = new Map<string, StoredNotification>();
function aCandidate(...args: Parameters<typeof candidateOf>): GateCandidate {
  const made = candidateOf(...args);
  const { read: _read, seen: _seen, ...item } = made.notification;
  inboxItems.set(item.id, { ...item, expiresAt: Math.floor(Date.now() / 1000) + 86_400 * 365 * 10 });
  return made;
}

function gate(options: { rateLimit?: number; reader?: PreferencesReader } = {}) {
  return new LiveDeliveryGate({
    items: { getItems: async (refs) => new Map(refs.flatMap(({ id }) => (inboxItems.has(id) ? [[id, inboxItems.get(id)!] as const] : []))) },
    preferences: options.reader ?? preferences,
    holds,
    scheduler,
    releaseQueueArn: RELEASE_QUEUE,
    clock,
    settings: { rateLimitPerWindow: options.rateLimit ?? 0 },
    urgentBypassesQuietHours: (type) => type !== 'security.alert',
  });
}

function releaseOf(index = 0): LiveReleaseMessage {
  return liveReleaseMessageSchema.parse(JSON.parse(scheduler.all()[index]!.payload));
}

beforeAll(async () => {
  db = await startTestDynamo();
  preferences = new PreferencesRepository(db.client, db.dynamo.tableNames.graph);
  holds = new LiveHoldRepository(db.client, db.dynamo.tableNames.idempotency);
});
afterAll(async () => db.close());
beforeEach(() => {
  userSeq += 1;
  user = { tenantId: 'acme', userId: `user-${userSeq}` };
  clock = new ManualClock(utc(2026, 11, 21, 23, 0)); // 00:00 in Berlin
  scheduler = new RecordingScheduler();
});

describe('LiveDeliveryGate.admit', () => {
  it('lets everything through for a user without preferences and no rate limit', async () => {
    expect(await gate().admit([aCandidate(user, clock.nowMs()), aCandidate(user, clock.nowMs() + 1)])).toEqual(['push', 'push']);
    expect(scheduler.calls).toBe(0);
  });

  it('holds non-urgent pushes in quiet hours under ONE schedule at the window end, lets a bypassing urgent one through', async () => {
    // Prepare
    await preferences.putPreferences(user.tenantId, user.userId, aPreferences({ timeZone: 'Europe/Berlin', quietHours: { start: '22:00', end: '07:00' } }));
    const candidates = [
      aCandidate(user, clock.nowMs(), { eventId: 'c1' }),
      aCandidate(user, clock.nowMs(), { eventId: 'm1', type: 'mention.created', priority: 'urgent' }),
      aCandidate(user, clock.nowMs(), { eventId: 's1', type: 'security.alert', priority: 'urgent' }),
    ];

    // Act
    const verdicts = await gate().admit(candidates);
    await gate().admit([aCandidate(user, clock.nowMs() + 5, { eventId: 'c2' })]);

    // Assess
    expect(verdicts).toEqual(['held', 'push', 'held']);
    expect(scheduler.all()).toHaveLength(1);
    expect(scheduler.all()[0]).toMatchObject({ atMs: utc(2026, 11, 22, 6, 0), targetArn: RELEASE_QUEUE });
    expect(releaseOf()).toEqual({ v: 1, kind: 'live-release', tenantId: 'acme', userId: user.userId, releaseAtMs: utc(2026, 11, 22, 6, 0) });
  });

  it('skips muted types and types with live delivery off', async () => {
    await preferences.putPreferences(user.tenantId, user.userId, aPreferences({ mutedTypes: ['post.published'], liveDelivery: { 'comment.created': false } }));
    const verdicts = await gate().admit([
      aCandidate(user, clock.nowMs(), { type: 'post.published' }),
      aCandidate(user, clock.nowMs(), { type: 'comment.created' }),
      aCandidate(user, clock.nowMs(), { type: 'mention.created' }),
    ]);
    expect(verdicts).toEqual(['skipped', 'skipped', 'push']);
  });

  it('fails closed when preferences cannot be read: holds for a re-check', async () => {
    // Prepare
    const failing: PreferencesReader = {
      getPreferences: async (_tenant, userIds) => new Map<string, PreferencesLookup>(userIds.map((id) => [id, { status: 'unreadable', reason: 'read failed' }])),
    };

    // Act
    const verdicts = await gate({ reader: failing }).admit([aCandidate(user, clock.nowMs(), { priority: 'urgent', type: 'mention.created' })]);

    // Assess
    expect(verdicts).toEqual(['held']);
    expect(scheduler.all()[0]!.atMs).toBe(clock.nowMs() + FAIL_CLOSED_RETRY_MS);
  });

  it('rate limit: the first N of a window go, the rest are held for one digest at the window end', async () => {
    // Prepare
    const limited = gate({ rateLimit: 3 });
    clock.set(utc(2026, 11, 21, 12, 0, 10));

    // Act
    const first = await limited.admit([aCandidate(user, clock.nowMs(), { eventId: 'r1' }), aCandidate(user, clock.nowMs() + 1, { eventId: 'r2' })]);
    const second = await limited.admit([1, 2, 3].map((offset) => aCandidate(user, clock.nowMs() + 10 + offset, { eventId: `r${2 + offset}` })));
    clock.set(utc(2026, 11, 21, 12, 1, 0));
    const nextWindow = await limited.admit([aCandidate(user, clock.nowMs(), { eventId: 'r6' })]);

    // Assess
    expect(first).toEqual(['push', 'push']);
    expect(second).toEqual(['push', 'held', 'held']);
    expect(nextWindow).toEqual(['push']);
    expect(scheduler.all()).toHaveLength(1);
    expect(scheduler.all()[0]!.atMs).toBe(utc(2026, 11, 21, 12, 1, 0));
  });
});

describe('takeRelease and HeldPushReleaser', () => {
  class FakeConnections {
    readonly posts: { connectionId: string; payload: unknown }[] = [];
    constructor(private readonly connections: ConnectionTarget[]) {}
    directory = {
      connectionsOf: async (users: readonly UserRef[]) => this.connections.filter((c) => users.some((u) => u.tenantId === c.tenantId && u.userId === c.userId)),
      removeConnection: async () => undefined,
    };
    claims = new Set<string>();
    ledger = {
      claim: async (notificationId: string, connectionId: string) => {
        const key = `${notificationId}/${connectionId}`;
        if (this.claims.has(key)) return false;
        this.claims.add(key);
        return true;
      },
      release: async (notificationId: string, connectionId: string) => void this.claims.delete(`${notificationId}/${connectionId}`),
    };
    pusher = {
      post: async (connectionId: string, payload: string): Promise<PostOutcome> => {
        this.posts.push({ connectionId, payload: JSON.parse(payload) });
        return 'sent';
      },
    };
  }

  it('a rate-limited burst is pushed as ONE digest per connection at the window end, once even if the release is redelivered', async () => {
    // Prepare
    const limited = gate({ rateLimit: 1 });
    clock.set(utc(2026, 11, 21, 12, 0, 10));
    await limited.admit([1, 2, 3, 4].map((i) => aCandidate(user, clock.nowMs() + i, { eventId: `b${i}` })));
    const fake = new FakeConnections([{ ...user, connectionId: 'conn-a' }, { ...user, connectionId: 'conn-b' }]);
    const releaser = new HeldPushReleaser({ gate: limited, directory: fake.directory, ledger: fake.ledger, pusher: fake.pusher });
    clock.set(utc(2026, 11, 21, 12, 1, 0));

    // Act
    const report = await releaser.release(releaseOf());
    const again = await releaser.release(releaseOf());

    // Assess
    expect(report).toEqual({ notifications: 3, messagesSent: 2 });
    expect(again.messagesSent).toBe(0);
    expect(fake.posts).toHaveLength(2);
    expect(fake.posts[0]!.payload).toMatchObject({ type: 'digest', count: 3 });
  });

  it('a quiet-hours hold of one notification is pushed as that notification when the window ends', async () => {
    // Prepare
    await preferences.putPreferences(user.tenantId, user.userId, aPreferences({ timeZone: 'Europe/Berlin', quietHours: { start: '22:00', end: '07:00' } }));
    const quiet = gate();
    const candidate = aCandidate(user, clock.nowMs(), { eventId: 'q1' });
    await quiet.admit([candidate]);
    const fake = new FakeConnections([{ ...user, connectionId: 'conn-a' }]);
    clock.set(releaseOf().releaseAtMs);

    // Act
    await new HeldPushReleaser({ gate: quiet, directory: fake.directory, ledger: fake.ledger, pusher: fake.pusher }).release(releaseOf());

    // Assess
    expect(fake.posts).toEqual([{ connectionId: 'conn-a', payload: { type: 'notification', notification: candidate.notification } }]);
  });

  it('a hold keeps a reference, not a copy: a notification deleted before the release (its author erased) is not pushed', async () => {
    // Prepare
    await preferences.putPreferences(user.tenantId, user.userId, aPreferences({ timeZone: 'Europe/Berlin', quietHours: { start: '22:00', end: '07:00' } }));
    const quiet = gate();
    const [kept, erased] = [aCandidate(user, clock.nowMs(), { eventId: 'k1' }), aCandidate(user, clock.nowMs() + 1, { eventId: 'e1', actor: { id: 'erin' } })];
    await quiet.admit([kept, erased]);
    const stored = await db.client.send(new GetCommand({ TableName: db.dynamo.tableNames.idempotency, Key: { id: keys.liveHoldId(user.tenantId, user.userId, releaseOf().releaseAtMs) } }));
    inboxItems.delete(erased.notification.id);
    const fake = new FakeConnections([{ ...user, connectionId: 'conn-a' }]);
    clock.set(releaseOf().releaseAtMs);

    // Act
    await new HeldPushReleaser({ gate: quiet, directory: fake.directory, ledger: fake.ledger, pusher: fake.pusher }).release(releaseOf());

    // Assess
    expect(JSON.stringify(stored.Item)).not.toContain('erin');
    expect(fake.posts).toEqual([{ connectionId: 'conn-a', payload: { type: 'notification', notification: kept.notification } }]);
  });

  it('a hold released already refuses late pushes, which go out at once instead', async () => {
    // Prepare
    const limited = gate({ rateLimit: 1 });
    clock.set(utc(2026, 11, 21, 12, 0, 10));
    await limited.admit([aCandidate(user, clock.nowMs(), { eventId: 'l1' }), aCandidate(user, clock.nowMs() + 1, { eventId: 'l2' })]);
    await limited.takeRelease(releaseOf());

    // Act
    const late = await limited.admit([aCandidate(user, clock.nowMs() + 2, { eventId: 'l3' })]);

    // Assess
    expect(late).toEqual(['push']);
  });

  it('a rate-limit digest landing in quiet hours is held again until they end', async () => {
    // Prepare: Berlin 22:00 = 21:00Z; the burst comes at 20:59:30Z, its window ends at 21:00Z.
    await preferences.putPreferences(user.tenantId, user.userId, aPreferences({ timeZone: 'Europe/Berlin', quietHours: { start: '22:00', end: '07:00' } }));
    const limited = gate({ rateLimit: 1 });
    clock.set(utc(2026, 11, 21, 20, 59, 30));
    await limited.admit([aCandidate(user, clock.nowMs(), { eventId: 'd1' }), aCandidate(user, clock.nowMs() + 1, { eventId: 'd2' })]);
    clock.set(utc(2026, 11, 21, 21, 0, 0));

    // Act
    const now = await limited.takeRelease(releaseOf(0));

    // Assess
    expect(now).toEqual([]);
    expect(scheduler.all().map((schedule) => schedule.atMs)).toEqual([utc(2026, 11, 21, 21, 0), utc(2026, 11, 22, 6, 0)]);
  });

  it('parseLiveReleaseMessage recognises release messages only', () => {
    expect(parseLiveReleaseMessage({ v: 1, kind: 'live-release', tenantId: 'acme', userId: 'alice', releaseAtMs: 1 })).toBeDefined();
    expect(parseLiveReleaseMessage({ v: 1, tenantId: 'acme', eventId: 'e' })).toBeUndefined();
  });
});
