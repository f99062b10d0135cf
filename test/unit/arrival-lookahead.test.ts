/**
 * The fan-out's arrival stamp started early (src/core/fanout/arrival-lookahead.ts): the service takes
 * the stamp the handler started beside the idempotency record instead of writing its own; only events
 * the service stamps before any read get one, and a stamp nobody takes is dropped by its own starter.
 */
import { describe, expect, it } from 'vitest';
import { ArrivalLookahead } from '../../src/core/fanout/arrival-lookahead.js';
import type { NotificationEvent } from '../../src/core/fanout/events.js';
import type { ArrivalCandidate, ArrivalKey, ArrivalLedger, ArrivalStamp } from '../../src/core/ports/fan-out.js';
import { findNotificationType } from '../../src/notifications/index.js';

const mention = findNotificationType('mention.created')!;
const follow = findNotificationType('follow.created')!;

function countingLedger(): ArrivalLedger & { stamps: { key: ArrivalKey; candidate: ArrivalCandidate }[] } {
  const stored = new Map<string, ArrivalStamp>();
  const stamps: { key: ArrivalKey; candidate: ArrivalCandidate }[] = [];
  return {
    stamps,
    async stampEvent(key, candidate) {
      stamps.push({ key, candidate });
      const id = `${key.tenantId}/${key.type}/${key.eventId}`;
      const first = stored.get(id);
      if (first) return { ...first, fresh: false };
      const stamp = { ...candidate, fresh: true, retracted: false };
      stored.set(id, stamp);
      return stamp;
    },
    stampArrival: async () => Promise.reject(new Error('not used')),
    restampArrival: async () => Promise.reject(new Error('not used')),
    stampRetracted: async () => Promise.reject(new Error('not used')),
  };
}

const event = (overrides: Partial<NotificationEvent> = {}): NotificationEvent => ({
  type: 'mention.created',
  eventId: 'e-1',
  tenantId: 'acme',
  actor: { id: 'bob' },
  recipients: ['alice'],
  priority: 'urgent',
  timeMs: 1_000,
  intakeMs: 1_700_000_000_000,
  data: {},
  ...overrides,
});

const clockAt = (nowMs: number) => ({ nowMs: () => nowMs });
const key = (e: NotificationEvent): ArrivalKey => ({ tenantId: e.tenantId, type: e.type, eventId: e.eventId });

describe('When the handler starts the arrival stamp beside the idempotency record', () => {
  it('answers the service with that stamp: one conditional put for the event, dated when it started', async () => {
    // Prepare
    const ledger = countingLedger();
    const lookahead = new ArrivalLookahead(ledger, { clock: clockAt(1_700_000_000_005), inboxTtlDays: 90 });
    const e = event();
    // Act
    lookahead.start(e, mention);
    const stamp = await lookahead.stampEvent(key(e), { arrivalMs: 1_700_000_000_009, intakeMs: 1_700_000_000_000 }, 0);
    // Assess
    expect(stamp).toMatchObject({ arrivalMs: 1_700_000_000_005, intakeMs: 1_700_000_000_000, fresh: true });
    expect(ledger.stamps).toHaveLength(1);
  });

  it('starts nothing for a post to followers or a follow (their tier or intake order is read first) and passes their stamps through', async () => {
    const ledger = countingLedger();
    const lookahead = new ArrivalLookahead(ledger, { clock: clockAt(5_000), inboxTtlDays: 90 });

    lookahead.start(event({ eventId: 'post', followersOf: 'bob', recipients: [] }), mention);
    lookahead.start(event({ eventId: 'f', type: 'follow.created' }), follow);
    expect(ledger.stamps).toHaveLength(0);

    const stamp = await lookahead.stampEvent({ tenantId: 'acme', type: 'mention.created', eventId: 'post' }, { arrivalMs: 6_000, intakeMs: 6_000, mode: 'celebrity' }, 0);
    expect(stamp).toMatchObject({ arrivalMs: 6_000, mode: 'celebrity', fresh: true });
  });

  it('takes a started stamp once: a retry in the same process stamps again (and gets the first stamp back)', async () => {
    const ledger = countingLedger();
    const lookahead = new ArrivalLookahead(ledger, { clock: clockAt(5_000), inboxTtlDays: 90 });
    const e = event();

    lookahead.start(e, mention);
    await lookahead.stampEvent(key(e), { arrivalMs: 5_001, intakeMs: 5_001 }, 0);
    const again = await lookahead.stampEvent(key(e), { arrivalMs: 9_000, intakeMs: 9_000 }, 0);

    expect(again).toMatchObject({ arrivalMs: 5_000, fresh: false });
    expect(ledger.stamps).toHaveLength(2);
  });

  it("drops only its own start: a concurrent copy's drop leaves the first copy's stamp to its service", async () => {
    const ledger = countingLedger();
    const lookahead = new ArrivalLookahead(ledger, { clock: clockAt(5_000), inboxTtlDays: 90 });
    const e = event();

    lookahead.start(e, mention);
    const dropCopy = lookahead.start(e, mention);
    dropCopy();
    await lookahead.stampEvent(key(e), { arrivalMs: 5_002, intakeMs: 5_002 }, 0);
    expect(ledger.stamps).toHaveLength(1);

    const dropOwn = lookahead.start(event({ eventId: 'e-2' }), mention);
    dropOwn();
    await lookahead.stampEvent(key(event({ eventId: 'e-2' })), { arrivalMs: 5_003, intakeMs: 5_003 }, 0);
    expect(ledger.stamps).toHaveLength(3);
  });

  it('keeps the intake at or before the stamp (clocks of two services), and hands a failed stamp to its taker only', async () => {
    const ledger = countingLedger();
    const lookahead = new ArrivalLookahead(ledger, { clock: clockAt(1_000), inboxTtlDays: 90 });
    lookahead.start(event({ intakeMs: 2_000 }), mention);
    expect(ledger.stamps[0]!.candidate).toEqual({ arrivalMs: 1_000, intakeMs: 1_000 });

    const failing = new ArrivalLookahead({ ...countingLedger(), stampEvent: async () => Promise.reject(new Error('table unwritable')) }, { clock: clockAt(1_000), inboxTtlDays: 90 });
    failing.start(event(), mention);
    await expect(failing.stampEvent(key(event()), { arrivalMs: 1_001, intakeMs: 1_001 }, 0)).rejects.toThrow('table unwritable');
    failing.start(event({ eventId: 'e-9' }), mention)();
    await new Promise((resolve) => setTimeout(resolve, 10));
  });
});
