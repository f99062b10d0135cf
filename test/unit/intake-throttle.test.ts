import { describe, expect, it } from 'vitest';
import { IntakeThrottle, type DrainingQueue } from '../../src/local/eventbridge/intake-throttle.js';
import { LocalBusRules } from '../../src/local/eventbridge/bus-rules.js';
import { createEventBusRoute } from '../../src/local/eventbridge/put-events.js';
import { LocalQueue } from '../../src/local/sqs/index.js';
import { findNotificationType } from '../../src/notifications/index.js';
import { aMention } from '../support/events.js';

/** A queue whose size, drained count and oldest waiting message the test sets. */
class FakeQueue implements DrainingQueue {
  size = 0;
  drainedCount = 0;
  oldest: number | undefined;
  oldestWaitingSentAt(): number | undefined {
    return this.oldest;
  }
}

function clock() {
  const state = { now: 1_000_000 };
  return { state, now: () => state.now };
}

describe('IntakeThrottle', () => {
  it('takes the cold burst before any drain rate is measured, then what the consumer drains in maxBacklogSeconds', () => {
    // Prepare
    const time = clock();
    const throttle = new IntakeThrottle({ maxBacklogSeconds: 5, maxMessages: 2_000, floorMessages: 100, coldMessages: 500, now: time.now });
    const queue = new FakeQueue();

    // Act: no history yet, then 2 s of a consumer draining 40 messages/s with 150 queued.
    const cold = throttle.room(queue);
    for (let step = 1; step <= 8; step += 1) {
      time.state.now += 250;
      queue.drainedCount += 10;
      throttle.drainRate(queue);
    }
    queue.size = 150;
    queue.oldest = time.state.now - 1_000;
    const warm = throttle.room(queue);

    // Assess: 40/s x 5 s = 200 messages allowed, 150 held: room for 50.
    expect(cold.room).toBe(500);
    expect(throttle.drainRate(queue)).toBeCloseTo(40, 5);
    expect(warm.room).toBe(50);
    queue.size = 200;
    const full = throttle.room(queue);
    expect(full.room).toBe(0);
    expect(full.reason).toMatch(/holds 200 messages, 5 s or more of backlog \(its consumer drains 40\.0 messages\/s; local limit 5 s, at most 2000 messages\)/);
    // After a window with no call, the old rate is forgotten: a burst from idle again.
    time.state.now += 6_000;
    queue.size = 0;
    queue.oldest = undefined;
    expect(throttle.room(queue).room).toBe(500);
  });

  it('throttles while the oldest waiting message has waited longer than maxBacklogSeconds, beyond the floor', () => {
    // Prepare: a consumer that stopped (nothing drained) with 120 messages, the oldest 6 s old.
    const time = clock();
    const throttle = new IntakeThrottle({ maxBacklogSeconds: 5, maxMessages: 2_000, floorMessages: 100, now: time.now });
    const queue = new FakeQueue();
    queue.size = 120;
    queue.oldest = time.state.now - 6_000;

    // Act
    const stalled = throttle.room(queue);
    queue.size = 50;
    const belowFloor = throttle.room(queue);

    // Assess
    expect(stalled.room).toBe(0);
    expect(stalled.reason).toMatch(/oldest waiting message of the intake queue has waited 6\.0 s/);
    expect(belowFloor.room).toBe(450);
  });

  it('never takes more than maxMessages, and with maxBacklogSeconds 0 only that', () => {
    const time = clock();
    const queue = new FakeQueue();
    queue.size = 3;
    expect(new IntakeThrottle({ maxBacklogSeconds: 5, maxMessages: 4, now: time.now }).room(queue).room).toBe(1);
    queue.size = 1_000;
    queue.oldest = time.state.now - 60_000;
    expect(new IntakeThrottle({ maxBacklogSeconds: 0, maxMessages: 2_000, now: time.now }).room(queue).room).toBe(1_000);
  });
});

describe('LocalQueue, what the throttle reads', () => {
  it('counts the messages drained (deleted or dead-lettered) and finds the oldest message no consumer has received', () => {
    // Prepare
    const dlq = new LocalQueue({ name: 'q-dlq', baseUrl: 'http://127.0.0.1:0', region: 'us-east-1', visibilityTimeoutMs: 1_000 });
    const queue = new LocalQueue({ name: 'q', baseUrl: 'http://127.0.0.1:0', region: 'us-east-1', visibilityTimeoutMs: 1_000, maxReceiveCount: 1, deadLetterQueue: dlq });
    const [first] = queue.sendBatch(['a']);
    const sentBefore = Date.now();
    queue.sendBatch(['b', 'c']);

    // Act: 'a' is received (in flight), 'b' deleted; then 'a' fails its only receive and goes to the DLQ.
    const [received] = queue.receive(1);
    const waitingAfterReceive = queue.oldestWaitingSentAt();
    const [b] = queue.receive(1);
    queue.delete(b!.receiptHandle!);
    const afterDelete = queue.drainedCount;
    queue.settleBatch([received!], new Set([received!.messageId]), Date.now() - 1_000);
    queue.countVisible();

    // Assess
    expect(received!.messageId).toBe(first!.messageId);
    expect(waitingAfterReceive).toBeGreaterThanOrEqual(sentBefore - 1);
    expect(afterDelete).toBe(1);
    expect(queue.drainedCount).toBe(2);
    expect(dlq.size).toBe(1);
    queue.close();
    dlq.close();
  });
});

describe('local PutEvents early back-pressure', () => {
  const send = (route: ReturnType<typeof createEventBusRoute>, detail: string) =>
    route.handle({
      method: 'POST',
      url: new URL('http://127.0.0.1/'),
      headers: { 'x-amz-target': 'AWSEvents.PutEvents' },
      body: Buffer.from(JSON.stringify({ Entries: [{ EventBusName: 'notifications', Source: 'test', DetailType: 'mention.created', Detail: detail }] })),
      remoteAddress: '127.0.0.1',
      localAddress: '127.0.0.1',
    });
  const put = (route: ReturnType<typeof createEventBusRoute>) => send(route, JSON.stringify(aMention()));
  type Answer = { FailedEntryCount: number; Entries: Array<{ ErrorCode?: string; ErrorMessage?: string }> };

  it('throttles on the backlog, far under the message limit: beyond the floor before a drain rate is measured, then while the oldest waiting message is older than INTAKE_BACKLOG_SECONDS', async () => {
    // Prepare: 600 queued messages, far under the limit of 2,000 (beyond the cold burst of 500).
    const intake = new LocalQueue({ name: 'IntakeMentionCreated', baseUrl: 'http://127.0.0.1:0', region: 'us-east-1', visibilityTimeoutMs: 1_000 });
    intake.sendBatch(Array.from({ length: 600 }, () => 'queued'));
    const route = createEventBusRoute({ busName: 'notifications', region: 'us-east-1', findType: findNotificationType, rules: new LocalBusRules([{ name: 'RuleMentionCreated', pattern: { 'detail-type': ['mention.created'] }, queue: intake }]), intakeBacklogLimit: 2_000, intakeBacklogSeconds: 2 });

    // Act: a first call (no drain rate yet); then a consumer drains 450 in 2.1 s (~210/s: room for ~420), and 150 still wait, sent 2.1 s ago.
    const cold = JSON.parse(String((await put(route))!.body)) as Answer;
    for (const message of intake.receive(450)) intake.delete(message.receiptHandle!);
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const aged = JSON.parse(String((await put(route))!.body)) as Answer;

    // Assess
    expect(cold.FailedEntryCount).toBe(1);
    expect(cold.Entries[0]!.ErrorMessage).toMatch(/^mention\.created: the intake queue holds 600 messages, 2 s or more of backlog \(no drain rate measured yet; local limit 2 s, at most 2000 messages\); retry this entry with backoff$/);
    expect(aged.FailedEntryCount).toBe(1);
    expect(aged.Entries[0]).toMatchObject({ ErrorCode: 'ThrottlingException' });
    expect(aged.Entries[0]!.ErrorMessage).toMatch(/^mention\.created: the oldest waiting message of the intake queue has waited 2\.\d s \(150 messages; local limit 2 s, at most 2000 messages\); retry this entry with backoff$/);
    intake.close();
  });

  it('accepts a burst from idle up to the cold burst (500); beyond it, throttles before validating (a retry of a full queue costs no validation)', async () => {
    const intake = new LocalQueue({ name: 'IntakeMentionCreated', baseUrl: 'http://127.0.0.1:0', region: 'us-east-1', visibilityTimeoutMs: 1_000 });
    intake.sendBatch(Array.from({ length: 499 }, () => 'queued'));
    const route = createEventBusRoute({ busName: 'notifications', region: 'us-east-1', findType: findNotificationType, rules: new LocalBusRules([{ name: 'RuleMentionCreated', pattern: { 'detail-type': ['mention.created'] }, queue: intake }]), intakeBacklogLimit: 2_000, intakeBacklogSeconds: 2 });
    expect((JSON.parse(String((await put(route))!.body)) as Answer).FailedEntryCount).toBe(0);
    expect((JSON.parse(String((await put(route))!.body)) as Answer).FailedEntryCount).toBe(1);
    const malformed = await send(route, '{"not":"a mention"}');
    expect((JSON.parse(String(malformed!.body)) as Answer).Entries[0]).toMatchObject({ ErrorCode: 'ThrottlingException' });
    intake.purge();
    const checkedOnceRoom = JSON.parse(String((await send(route, '{"not":"a mention"}'))!.body)) as Answer;
    expect(checkedOnceRoom.Entries[0]).toMatchObject({ ErrorCode: 'InvalidArgument' });
    intake.close();
  });
});
