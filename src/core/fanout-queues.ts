/**
 * The queues the fan-out of one catalog type can send to, derived from its definition. The one
 * place both sides read: the CDK app binds exactly these URLs + sqs:SendMessage grants per fan-out
 * function, and the fan-out's dependencies require exactly these URLs at cold start (a port for any
 * other queue throws if it is ever called). Keep it in step with `FanOutService.process`.
 */
import type { NotificationType } from './ports/notification-type.js';

export type FanOutQueue = 'urgent' | 'info' | 'promotion';

/** Env var that carries each queue's URL (set by the CDK app and the local runtime). */
export const FAN_OUT_QUEUE_URL_ENV: Readonly<Record<FanOutQueue, string>> = {
  urgent: 'URGENT_QUEUE_URL',
  info: 'INFO_QUEUE_URL',
  promotion: 'PROMOTION_QUEUE_URL',
};

/**
 * - delivery (`urgent` and `info`): any type that notifies (audience not `none`) enqueues delivery
 *   jobs on the queue of the EVENT's priority, which the envelope may override, so it needs both;
 *   a type with audience `none` returns before any delivery job.
 * - `promotion`: any type with a graph effect. `settleTier` runs after a follow AND an unfollow; an
 *   unfollow promotes too when the tier it finds is stale (count still at or over the threshold on
 *   an ordinary tier: the threshold was lowered, or a follow's promotion never completed). A type
 *   without a graph effect never changes a follower count, so it never promotes.
 */
export function fanOutQueueNeeds(type: Pick<NotificationType, 'audience' | 'graphEffect'>): readonly FanOutQueue[] {
  const needs: FanOutQueue[] = [];
  if (type.audience !== 'none') needs.push('urgent', 'info');
  if (type.graphEffect !== undefined) needs.push('promotion');
  return needs;
}

/**
 * The port of queues the type never sends to (`promotion`, or both delivery queues): no URL to read,
 * and a loud failure (not a silent drop) if the fan-out ever does send there, which means
 * `fanOutQueueNeeds` is wrong.
 */
export function unusedFanOutQueue(queues: readonly FanOutQueue[], detailType: string): { enqueue(message: unknown): Promise<void> } {
  const names = queues.join(' / ');
  const envVars = queues.map((queue) => FAN_OUT_QUEUE_URL_ENV[queue]).join(' / ');
  return {
    async enqueue() {
      throw new Error(
        `fan-out of ${detailType} sent to the ${names} queue, which fanOutQueueNeeds says it never uses: this function has no ${envVars} and no sqs:SendMessage on it (fix fanOutQueueNeeds in src/core/fanout-queues.ts)`,
      );
    },
  };
}
