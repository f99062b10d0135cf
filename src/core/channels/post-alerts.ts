/**
 * Post alerts (the bell on a profile): a follower turns them on for an account they follow
 * (`PUT /alerts/{accountId}`); a post by that account then pushes them, whatever the type's push
 * default, through every rule of the push channel (consent, mutes, quiet hours, rate limit and
 * digest, dedup). The fan-out puts ONE alert job per post on the alerts queue; a job takes one page
 * of subscribers (ALERT_SUBSCRIBERS_PER_JOB, at most 20 devices each: <= 1,000 devices, and the
 * queue's batch size is 1, so <= 1,000 devices per invocation), pushes them and enqueues the next
 * page. The provider rate is the alerts consumer's concurrency x what one invocation sends
 * (docs/channels.md#post-alerts).
 */
import { MAX_DEVICES_PER_USER } from './devices.js';
import type { DeliveryJob } from '../jobs/delivery-job.js';
import type { AlertJob, AlertJobQueue } from '../jobs/alert-job.js';
import { idOfEventFor } from '../model/recipient-ids.js';
import type { FollowGraph } from '../ports/follow-graph.js';
import type { AlertSubscriptions } from './ports.js';
import type { ChannelInput } from './channel-delivery.js';

/** Devices one alert job (so one invocation: the alerts queue's batch size is 1) pushes to at most. */
export const ALERT_DEVICES_PER_JOB = 1_000;
export const ALERT_SUBSCRIBERS_PER_JOB = Math.floor(ALERT_DEVICES_PER_JOB / MAX_DEVICES_PER_USER);

export interface PostAlertsDeps {
  subscriptions: Pick<AlertSubscriptions, 'listSubscribers'>;
  graph: Pick<FollowGraph, 'getFollowers'>;
  /** The next page's job (the alerts queue). */
  queue: AlertJobQueue;
}

/** One page of an alert job: the still-following subscribers as push inputs (marked `alert`), and the next page's job, if any. */
export async function alertPage(deps: PostAlertsDeps, recordId: string, job: AlertJob): Promise<{ inputs: ChannelInput[]; next?: AlertJob; listed: number }> {
  const { tenantId, eventId, alerts } = job;
  const page = await deps.subscriptions.listSubscribers(tenantId, alerts.actorId, alerts.after, ALERT_SUBSCRIBERS_PER_JOB);
  // Subscribed once, maybe unfollowed since: only a current follower is pushed.
  const pairs = page.followerIds.length > 0 ? await deps.graph.getFollowers(tenantId, alerts.actorId, page.followerIds) : new Map();
  const following = page.followerIds.filter((userId) => pairs.get(userId)?.followedAt !== undefined);
  const event = { type: job.notification.type, eventId, arrivalMs: alerts.arrivalMs };
  const { alerts: _alerts, ...base } = job;
  const inputs = following.map((userId): ChannelInput => {
    const notificationId = idOfEventFor(tenantId, event, alerts.mode === 'celebrity' ? { actorId: alerts.actorId } : { userId });
    const delivery: DeliveryJob = { ...base, target: { kind: 'recipients', recipients: [{ userId, notificationId }] } };
    return { recordId, job: { ...delivery, alert: true, ...(alerts.mode === 'celebrity' ? { feedOf: alerts.actorId } : {}) } };
  });
  return { inputs, listed: page.followerIds.length, ...(page.next !== undefined ? { next: { ...job, alerts: { ...alerts, after: page.next, page: alerts.page + 1 } } } : {}) };
}
