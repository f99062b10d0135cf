/**
 * The queues the fan-out of one catalog type can send to, derived from its definition. The one
 * place both sides read: the CDK app binds exactly these URLs + sqs:SendMessage grants per fan-out
 * function, and its composition (src/app/fan-out.ts) requires exactly these URLs at cold start (a port for any
 * other queue throws if it is ever called). Keep it in step with `FanOutService.process`.
 */
import type { NotificationType } from '../ports/notification-type.js';

export type FanOutQueue = 'urgent' | 'info' | 'promotion';

/**
 * - delivery (`urgent` and `info`): any type that notifies (audience not `none`) enqueues delivery
 *   jobs on the queue of the EVENT's priority, which the envelope may override, so it needs both;
 *   a type with audience `none` returns before any delivery job.
 * - `urgent` only: a retraction type (audience `none`): its `retracted` jobs are urgent.
 * - `promotion`: any type with a graph effect. `settleTier` runs after a follow AND an unfollow; an
 *   unfollow promotes too when the tier it finds is stale (count still at or over the threshold on
 *   an ordinary tier: the threshold was lowered, or a follow's promotion never completed). A type
 *   without a graph effect never changes a follower count, so it never promotes.
 */
export function fanOutQueueNeeds(type: Pick<NotificationType, 'audience' | 'graphEffect' | 'retraction'>): readonly FanOutQueue[] {
  const needs: FanOutQueue[] = [];
  if (type.audience !== 'none') needs.push('urgent', 'info');
  else if (type.retraction !== undefined) needs.push('urgent');
  if (type.graphEffect !== undefined) needs.push('promotion');
  return needs;
}
