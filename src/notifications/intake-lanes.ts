/**
 * The intake lanes of one catalog type: the EventBridge rules that take its events off the bus, each
 * into its own intake queue (+DLQ), all consumed by the type's one fan-out function. A type whose
 * events can be urgent (it notifies, so an event's `priority` picks its delivery queue) has two: the
 * urgent lane takes the events whose priority is urgent (`detail.priority` "urgent", or absent when
 * the type's default is urgent), the standard lane every other one. So an urgent event never waits
 * behind a backlog of its type's info events, on AWS (one SQS queue each) as locally (where the bus
 * also throttles per intake queue). A type that notifies nobody has the standard lane only.
 *
 * The one place both sides read: the CDK app builds a rule + queue per lane from these patterns and
 * names, the local bus routes by evaluating the same patterns (src/local/eventbridge/event-pattern.ts).
 *
 * The two patterns of a type are complements for any JSON `priority`: the lane of the type's default
 * priority takes "anything but the other priority, or no priority", the other lane exactly the other
 * priority. So a valid event is in exactly one lane whatever the EventBridge semantics of
 * `anything-but` on a missing field, and an invalid priority ("high", 1, null) reaches the lane of the
 * default, whose fan-out refuses it into that lane's DLQ. (An array holding both priorities matches
 * both lanes; it is invalid, so both fan-outs refuse it; the fan-out's idempotency key (type, tenant,
 * event id) would stop a second fan-out of any event that reached both.)
 */
import type { NotificationType } from '../core/ports/notification-type.js';
import type { Priority } from '../core/jobs/delivery-job.js';
import { resourceNameOf } from './notification-type.js';

export type IntakeLane = 'standard' | 'urgent';

/** The operators these patterns use: an exact JSON scalar, `anything-but` of strings, `exists`. */
export type EventPatternMatcher = string | number | boolean | null | { 'anything-but': string | readonly string[] } | { exists: boolean };

/** An EventBridge event pattern, in the JSON form a rule holds (`detail-type`, `detail`, ...). */
export interface EventPattern {
  readonly [field: string]: readonly EventPatternMatcher[] | EventPattern;
}

export interface IntakeLaneSpec {
  readonly lane: IntakeLane;
  /** The lane's queue name: the local queue's, and the CDK construct id of its QueueWithDlq. */
  readonly queueName: string;
  /** The CDK construct id of the lane's rule. */
  readonly ruleId: string;
  /** The rule's event pattern. */
  readonly pattern: EventPattern;
}

type LaneType = Pick<NotificationType, 'detailType' | 'defaultPriority' | 'audience'>;

/** Standard lanes are `Intake<Type>`, urgent ones `UrgentIntake<Type>`: no type name can make one the other. */
export function intakeQueueName(detailType: string, lane: IntakeLane): string {
  return `${lane === 'urgent' ? 'UrgentIntake' : 'Intake'}${resourceNameOf(detailType)}`;
}

/** Whether the type's events can be urgent: its events' priority picks their delivery queue. */
export function hasUrgentLane(type: Pick<NotificationType, 'audience'>): boolean {
  return type.audience !== 'none';
}

const otherPriority = (priority: Priority): Priority => (priority === 'urgent' ? 'info' : 'urgent');

/** The priorities a lane takes, as matchers of `detail.priority`. */
function priorityMatchers(lane: IntakeLane, defaultPriority: Priority): readonly EventPatternMatcher[] {
  const lanePriority: Priority = lane === 'urgent' ? 'urgent' : 'info';
  const other = otherPriority(defaultPriority);
  if (lanePriority === other) return [other];
  return [{ 'anything-but': other }, { exists: false }];
}

/** The lanes of a type, the standard one first. */
export function intakeLanesOf(type: LaneType): readonly IntakeLaneSpec[] {
  const name = resourceNameOf(type.detailType);
  if (!hasUrgentLane(type)) return [{ lane: 'standard', queueName: intakeQueueName(type.detailType, 'standard'), ruleId: `Rule${name}`, pattern: { 'detail-type': [type.detailType] } }];
  return (['standard', 'urgent'] as const).map((lane) => ({
    lane,
    queueName: intakeQueueName(type.detailType, lane),
    ruleId: lane === 'urgent' ? `UrgentRule${name}` : `Rule${name}`,
    pattern: { 'detail-type': [type.detailType], detail: { priority: priorityMatchers(lane, type.defaultPriority) } },
  }));
}
