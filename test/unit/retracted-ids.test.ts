import { describe, expect, it, vi } from 'vitest';
import { feedRecipient, recipientNotificationId } from '../../src/core/model/recipient-ids.js';
import { notificationId } from '../../src/core/model/ids.js';
import { RetractedIds } from '../../src/core/read/retracted-ids.js';
import type { Retraction } from '../../src/core/ports/inbox.js';
import type { FollowedCelebrity } from '../../src/core/model/followed-pack.js';

const user = { tenantId: 'acme', userId: 'reader' };
const T0 = Date.UTC(2026, 10, 25, 12);
const retraction = (eventId: string, arrivalMs: number): Retraction => ({ tenantId: 'acme', type: 'post.published', eventId, arrivalMs });
const feedId = (celebrityId: string, r: Retraction) => notificationId({ tenantId: 'acme', type: r.type, eventId: r.eventId, recipient: feedRecipient(celebrityId), timeMs: r.arrivalMs });

describe('RetractedIds', () => {
  it("holds the user's own id and the followed feeds' ids of each retracted event, nothing else", () => {
    // Prepare
    const celebrities: FollowedCelebrity[] = ['a', 'b'].map((celebrityId) => ({ celebrityId, followedAtMs: T0 - 60_000 }));
    const gone = retraction('e1', T0);
    const retracted = new RetractedIds(user, celebrities, [gone, retraction('e2', T0 + 5)]);

    // Assess
    expect(retracted.has(recipientNotificationId('acme', gone.type, 'e1', 'reader', T0))).toBe(true);
    expect(retracted.has(feedId('b', gone))).toBe(true);
    // Same millisecond, a celebrity not followed, another event, another user
    expect(retracted.has(feedId('c', gone))).toBe(false);
    expect(retracted.has(feedId('a', retraction('e3', T0)))).toBe(false);
    expect(retracted.has(recipientNotificationId('acme', gone.type, 'e1', 'other', T0))).toBe(false);
    expect(new RetractedIds(user, celebrities, []).isEmpty).toBe(true);
    // A snooze comeback goes with its root: own, or of one named feed (no other feed hashed).
    expect(retracted.hasComeback({ from: 'x', rootId: recipientNotificationId('acme', gone.type, 'e1', 'reader', T0) })).toBe(true);
    expect(retracted.hasComeback({ from: 'x', rootId: feedId('b', gone), rootActor: 'b' })).toBe(true);
    expect(retracted.hasComeback({ from: 'x', rootId: feedId('b', gone), rootActor: 'a' })).toBe(false);
  });

  it('hashes the followed feeds only for an id in a retracted event\'s millisecond, once per id and read', () => {
    // Prepare: 5,000 followed celebrities, 50 retractions
    const celebrities: FollowedCelebrity[] = Array.from({ length: 5_000 }, (_, c) => ({ celebrityId: `star-${c}`, followedAtMs: T0 - 60_000 }));
    const mapped = vi.spyOn(celebrities, 'some');
    const retractions = Array.from({ length: 50 }, (_, i) => retraction(`e${i}`, T0 + i * 1_000));
    const retracted = new RetractedIds(user, celebrities, retractions);

    // Act: 1,000 ids of other milliseconds, then one retracted feed id twice
    for (let i = 0; i < 1_000; i += 1) retracted.has(notificationId({ tenantId: 'acme', type: 'post.published', eventId: `x${i}`, recipient: 'feed#star-1', timeMs: T0 + 500 + i * 1_000 }));
    const before = mapped.mock.calls.length;
    const hit = feedId('star-4999', retractions[7]!);

    // Assess
    expect(before).toBe(0);
    expect(retracted.has(hit)).toBe(true);
    expect(retracted.has(hit)).toBe(true);
    expect(mapped.mock.calls.length).toBe(1);
  });
});
