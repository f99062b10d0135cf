/**
 * The intake lanes (src/notifications/intake-lanes.ts) as the local bus evaluates them
 * (src/local/eventbridge/event-pattern.ts): every event of a type goes to exactly one lane (none
 * lost, none fanned out twice), an urgent one (explicit, or by the type's default) to the urgent lane;
 * and the local PutEvents throttles each lane on its own backlog.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LocalBusRules } from '../../src/local/eventbridge/bus-rules.js';
import { assertSupportedPattern, matchesEventPattern } from '../../src/local/eventbridge/event-pattern.js';
import { createEventBusRoute } from '../../src/local/eventbridge/put-events.js';
import { LocalQueue } from '../../src/local/sqs/index.js';
import { catalog, findNotificationType } from '../../src/notifications/index.js';
import { intakeLanesOf, intakeQueueName, type EventPattern, type IntakeLane } from '../../src/notifications/intake-lanes.js';
import { aComment, aMention } from '../support/events.js';

const aQueue = (name: string) => new LocalQueue({ name, baseUrl: 'http://127.0.0.1:0', region: 'us-east-1', visibilityTimeoutMs: 1_000 });

const lanesMatching = (detailType: string, detail: unknown): IntakeLane[] =>
  intakeLanesOf(findNotificationType(detailType)!)
    .filter((lane) => matchesEventPattern(lane.pattern, { 'detail-type': detailType, source: 'test', detail }))
    .map((lane) => lane.lane);

describe('intake lanes', () => {
  it('gives a type that notifies a standard and an urgent lane, a type that notifies nobody the standard lane only', () => {
    for (const type of catalog) {
      const lanes = intakeLanesOf(type).map((lane) => lane.lane);
      expect(lanes, type.detailType).toEqual(type.audience === 'none' ? ['standard'] : ['standard', 'urgent']);
    }
    expect(intakeLanesOf(findNotificationType('mention.created')!).map((lane) => lane.queueName)).toEqual(['IntakeMentionCreated', 'UrgentIntakeMentionCreated']);
    // No type name can make a standard lane's name an urgent one's.
    expect(intakeQueueName('urgent.intake.mention.created', 'standard')).not.toBe(intakeQueueName('mention.created', 'urgent'));
  });

  it('routes by the effective priority: explicit, else the type\'s default', () => {
    expect(lanesMatching('mention.created', aMention())).toEqual(['urgent']);
    expect(lanesMatching('mention.created', aMention({ priority: 'urgent' }))).toEqual(['urgent']);
    expect(lanesMatching('mention.created', aMention({ priority: 'info' }))).toEqual(['standard']);
    expect(lanesMatching('comment.created', aComment('alice'))).toEqual(['standard']);
    expect(lanesMatching('comment.created', aComment('alice', { priority: 'info' }))).toEqual(['standard']);
    expect(lanesMatching('comment.created', aComment('alice', { priority: 'urgent' }))).toEqual(['urgent']);
  });

  it('puts every event with a non-array priority (valid or not, or none) in exactly one lane of its type', () => {
    const notifying = catalog.filter((type) => type.audience !== 'none').map((type) => type.detailType);
    const priority = fc.oneof(fc.constant(undefined), fc.constantFrom('urgent', 'info', 'URGENT', '', null, true, 0, 1), fc.jsonValue().filter((value) => !Array.isArray(value)));
    fc.assert(
      fc.property(fc.constantFrom(...notifying), priority, (detailType, value) => {
        const detail = value === undefined ? { id: 'e' } : { id: 'e', priority: value };
        const lanes = lanesMatching(detailType, detail);
        expect(lanes).toHaveLength(1);
        if (value === 'urgent' || value === 'info') expect(lanes).toEqual([value === 'urgent' ? 'urgent' : 'standard']);
        if (value === undefined) expect(lanes).toEqual([findNotificationType(detailType)!.defaultPriority === 'urgent' ? 'urgent' : 'standard']);
      }),
    );
  });

  it('loses no event whose priority is an array (invalid: the fan-out of each lane it reaches refuses it)', () => {
    fc.assert(
      fc.property(fc.constantFrom('mention.created', 'comment.created'), fc.array(fc.oneof(fc.constantFrom('urgent', 'info'), fc.jsonValue())), (detailType, value) => {
        const lanes = lanesMatching(detailType, { priority: value });
        expect(lanes.length).toBeGreaterThanOrEqual(1);
      }),
    );
  });

  it('evaluates EventBridge semantics: exists false matches a missing field or an object, anything-but needs a leaf, arrays match by element', () => {
    const pattern: EventPattern = { detail: { priority: [{ exists: false }] } };
    expect(matchesEventPattern(pattern, { detail: {} })).toBe(true);
    expect(matchesEventPattern(pattern, {})).toBe(true);
    expect(matchesEventPattern(pattern, { detail: { priority: { level: 'urgent' } } })).toBe(true);
    expect(matchesEventPattern(pattern, { detail: { priority: null } })).toBe(false);
    const anythingBut: EventPattern = { detail: { priority: [{ 'anything-but': 'urgent' }] } };
    expect(matchesEventPattern(anythingBut, { detail: {} })).toBe(false);
    expect(matchesEventPattern(anythingBut, { detail: { priority: 'info' } })).toBe(true);
    expect(matchesEventPattern(anythingBut, { detail: { priority: 'urgent' } })).toBe(false);
    expect(matchesEventPattern({ 'detail-type': ['a', 'b'] }, { 'detail-type': 'b' })).toBe(true);
    expect(matchesEventPattern({ detail: { tags: ['x'] } }, { detail: { tags: ['y', 'x'] } })).toBe(true);
  });

  it('refuses a pattern operator it cannot evaluate, rather than route differently from AWS', () => {
    expect(() => assertSupportedPattern({ detail: { priority: [{ prefix: 'urg' } as never] } })).toThrow(/not supported/);
    expect(() => new LocalBusRules([{ name: 'NoTypes', pattern: { source: ['x'] }, queue: aQueue('q') }])).toThrow(/detail-types/);
  });
});

describe('the local PutEvents with two lanes', () => {
  const entry = (detail: unknown) => ({ EventBusName: 'notifications', Source: 'test', DetailType: 'mention.created', Detail: JSON.stringify(detail) });
  const put = async (route: ReturnType<typeof createEventBusRoute>, entries: unknown[]) => {
    const response = await route.handle({
      method: 'POST',
      url: new URL('http://127.0.0.1/'),
      headers: { 'x-amz-target': 'AWSEvents.PutEvents' },
      body: Buffer.from(JSON.stringify({ Entries: entries })),
      remoteAddress: '127.0.0.1',
      localAddress: '127.0.0.1',
    });
    return JSON.parse(String(response!.body)) as { FailedEntryCount: number; Entries: Array<{ EventId?: string; ErrorCode?: string; ErrorMessage?: string }> };
  };

  it('throttles each lane on its own backlog: a full standard lane leaves an urgent entry of the same type accepted, into the urgent lane', async () => {
    const standard = aQueue('IntakeMentionCreated');
    const urgent = aQueue('UrgentIntakeMentionCreated');
    const queues = { standard, urgent };
    const rules = new LocalBusRules(intakeLanesOf(findNotificationType('mention.created')!).map((lane) => ({ name: lane.ruleId, pattern: lane.pattern, queue: queues[lane.lane] })));
    const route = createEventBusRoute({ busName: 'notifications', region: 'us-east-1', findType: findNotificationType, rules, intakeBacklogLimit: 3 });

    const info = await put(route, Array.from({ length: 5 }, () => entry(aMention({ priority: 'info' }))));
    expect(info.Entries.map((result) => result.ErrorCode ?? 'ok')).toEqual(['ok', 'ok', 'ok', 'ThrottlingException', 'ThrottlingException']);
    const urgentAnswer = await put(route, [entry(aMention()), entry(aMention({ priority: 'urgent' })), entry(aMention({ priority: 'info' }))]);

    expect(urgentAnswer.Entries.map((result) => result.ErrorCode ?? 'ok')).toEqual(['ok', 'ok', 'ThrottlingException']);
    expect(standard.size).toBe(3);
    expect(urgent.size).toBe(2);
    expect(urgent.peek().map((message) => (JSON.parse(message.body) as { detail: { priority?: string } }).detail.priority)).toEqual([undefined, 'urgent']);
  });

  it('answers hostile entries one by one: a priority nested 20,000 arrays deep, a __proto__ priority, a Detail that is not JSON', async () => {
    const standard = aQueue('IntakeMentionCreated');
    const urgent = aQueue('UrgentIntakeMentionCreated');
    const queues = { standard, urgent };
    const rules = new LocalBusRules(intakeLanesOf(findNotificationType('mention.created')!).map((lane) => ({ name: lane.ruleId, pattern: lane.pattern, queue: queues[lane.lane] })));
    const route = createEventBusRoute({ busName: 'notifications', region: 'us-east-1', findType: findNotificationType, rules, intakeBacklogLimit: 100 });
    const { priority: _priority, ...mention } = aMention();
    const deep = JSON.stringify(mention).replace(/}$/, `,"priority":${'['.repeat(20_000)}"urgent"${']'.repeat(20_000)}}`);
    const proto = JSON.stringify(mention).replace(/}$/, ',"__proto__":{"priority":"urgent"}}');

    const answer = await put(route, [
      { EventBusName: 'notifications', Source: 'test', DetailType: 'mention.created', Detail: deep },
      { EventBusName: 'notifications', Source: 'test', DetailType: 'mention.created', Detail: proto },
      { EventBusName: 'notifications', Source: 'test', DetailType: 'mention.created', Detail: '{"priority":' },
      entry(aMention({ priority: 'info' })),
    ]);

    // Each hostile entry is refused with its own reason (the lanes' matching reads the Detail before validation and must not throw); the good one is queued.
    expect(answer.Entries.map((result) => result.ErrorCode ?? 'ok')).toEqual(['InvalidArgument', 'InvalidArgument', 'MalformedDetail', 'ok']);
    expect(answer.Entries[0]!.ErrorMessage).toContain('nested deeper than 64 levels');
    expect(answer.Entries[1]!.ErrorMessage).toContain('__proto__');
    expect(answer.FailedEntryCount).toBe(3);
    expect(standard.size).toBe(1);
    expect(urgent.size).toBe(0);
  });
});
