import { describe, expect, it } from 'vitest';
import { LocalBusRules } from '../../src/local/eventbridge/bus-rules.js';
import { createEventBusRoute } from '../../src/local/eventbridge/put-events.js';
import { LocalQueue } from '../../src/local/sqs/index.js';
import { findNotificationType } from '../../src/notifications/index.js';
import { aMention } from '../support/events.js';

const mentionEntry = () => ({ EventBusName: 'notifications', Source: 'test', DetailType: 'mention.created', Detail: JSON.stringify(aMention()) });

function putEvents(route: ReturnType<typeof createEventBusRoute>, entries: unknown[]) {
  const url = new URL('http://127.0.0.1/');
  return route.handle({ method: 'POST', url, headers: { 'x-amz-target': 'AWSEvents.PutEvents' }, body: Buffer.from(JSON.stringify({ Entries: entries })), remoteAddress: '127.0.0.1', localAddress: '127.0.0.1' });
}

describe('local PutEvents back-pressure', () => {
  it('throttles, per entry, what would take the intake queue beyond its backlog limit, and accepts again once it drains', async () => {
    // Prepare
    const intake = new LocalQueue({ name: 'IntakeMentionCreated', baseUrl: 'http://127.0.0.1:0', region: 'us-east-1', visibilityTimeoutMs: 1_000 });
    const route = createEventBusRoute({ busName: 'notifications', region: 'us-east-1', findType: findNotificationType, rules: new LocalBusRules([{ name: 'RuleMentionCreated', pattern: { 'detail-type': ['mention.created'] }, queue: intake }]), intakeBacklogLimit: 4 });

    // Act
    const first = await putEvents(route, Array.from({ length: 6 }, mentionEntry));
    intake.purge();
    const afterDrain = await putEvents(route, [mentionEntry()]);

    // Assess
    const answer = JSON.parse(String(first!.body)) as { FailedEntryCount: number; Entries: { EventId?: string; ErrorCode?: string }[] };
    expect(first!.status).toBe(200);
    expect(answer.FailedEntryCount).toBe(2);
    expect(answer.Entries.map((entry) => entry.ErrorCode ?? 'ok')).toEqual(['ok', 'ok', 'ok', 'ok', 'ThrottlingException', 'ThrottlingException']);
    expect(JSON.parse(String(afterDrain!.body))).toMatchObject({ FailedEntryCount: 0 });
    intake.close();
  });
});
