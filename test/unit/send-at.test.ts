import { describe, expect, it } from 'vitest';
import { scheduleName } from '../../src/core/jobs/schedules.js';
import { eventAtSendTime, SendAtDeferral } from '../../src/core/fanout/send-at.js';
import { ManualClock } from '../support/dynamo.js';
import { aNotificationEvent, eventBridgeBody } from '../support/events.js';
import { RecordingScheduler } from '../support/live-gate-fixtures.js';
import { utc } from '../support/preferences-fixtures.js';

const INTAKE = 'arn:aws:sqs:eu-west-1:123456789012:IntakeMentionCreated';
const now = utc(2026, 11, 21, 9, 0);

function deferral(scheduler: RecordingScheduler, minDelayMs = 60_000) {
  return new SendAtDeferral({ scheduler, intakeQueueArn: INTAKE, clock: new ManualClock(now), minDelayMs });
}

describe('SendAtDeferral.deferIfLater', () => {
  it('schedules the unchanged intake body at sendAt on the type intake queue, under a name from tenant + type + event id', async () => {
    // Prepare
    const scheduler = new RecordingScheduler();
    const event = aNotificationEvent({ eventId: 'evt-42', sendAt: '2026-11-21T10:00:00Z' });
    const body = eventBridgeBody('mention.created', { id: 'evt-42' });

    // Act
    const decision = await deferral(scheduler).deferIfLater(event, body);

    // Assess
    expect(decision).toEqual({ deferred: true, atMs: utc(2026, 11, 21, 10, 0), scheduleName: scheduleName('sendat', 'acme', 'mention.created\u0000evt-42'), outcome: 'created' });
    expect(scheduler.all()).toEqual([{ name: decision.deferred ? decision.scheduleName : '', atMs: utc(2026, 11, 21, 10, 0), targetArn: INTAKE, payload: body }]);
  });

  it('a second publish of the same event finds the schedule (already scheduled) and is still deferred', async () => {
    const scheduler = new RecordingScheduler();
    const event = aNotificationEvent({ eventId: 'evt-43', sendAt: '2026-11-21T10:00:00Z' });
    await deferral(scheduler).deferIfLater(event, 'first body');
    const again = await deferral(scheduler).deferIfLater(event, 'second body');
    expect(again).toMatchObject({ deferred: true, outcome: 'already_scheduled' });
    expect(scheduler.all()).toHaveLength(1);
  });

  it('sends now without sendAt, with sendAt in the past, or within the minimum delay', async () => {
    const scheduler = new RecordingScheduler();
    for (const sendAt of [undefined, '2026-11-21T08:00:00Z', '2026-11-21T09:01:00Z', '2026-11-21T09:00:30+00:00']) {
      expect(await deferral(scheduler).deferIfLater(aNotificationEvent({ ...(sendAt ? { sendAt } : {}) }), 'body')).toEqual({ deferred: false });
    }
    expect(await deferral(scheduler).deferIfLater(aNotificationEvent({ sendAt: '2026-11-21T09:01:00.001Z' }), 'body')).toMatchObject({ deferred: true });
    expect(scheduler.calls).toBe(1);
  });

  it('honours a shorter minimum delay (the local runtime)', async () => {
    const scheduler = new RecordingScheduler();
    expect(await deferral(scheduler, 1_000).deferIfLater(aNotificationEvent({ sendAt: '2026-11-21T09:00:03Z' }), 'body')).toMatchObject({ deferred: true, atMs: utc(2026, 11, 21, 9, 0, 3) });
  });
});

describe('eventAtSendTime', () => {
  it('dates a scheduled event at sendAt, deterministically; leaves other events alone', () => {
    const scheduled = aNotificationEvent({ timeMs: now, sendAt: '2026-11-21T10:00:00+01:00' });
    expect(eventAtSendTime(scheduled).timeMs).toBe(utc(2026, 11, 21, 9, 0));
    expect(eventAtSendTime(aNotificationEvent({ timeMs: now, sendAt: '2026-11-21T11:00:00Z' })).timeMs).toBe(utc(2026, 11, 21, 11, 0));
    expect(eventAtSendTime(aNotificationEvent({ timeMs: now, sendAt: '2026-11-20T11:00:00Z' })).timeMs).toBe(now);
    const plain = aNotificationEvent({ timeMs: now });
    expect(eventAtSendTime(plain)).toBe(plain);
  });
});
