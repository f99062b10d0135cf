import { describe, expect, it } from 'vitest';
import { MAX_RECIPIENTS_PER_JOB, deliveryJobSchema } from '../../src/core/jobs/delivery-job.js';
import { planFeedWrites, planOnlineFollowersJob, planRecipientJobs, planRecipientWrites, renderNotification } from '../../src/core/fanout/fanout-plan.js';
import { notificationId } from '../../src/core/model/ids.js';
import { postPublished } from '../../src/notifications/post-published.js';
import { mentionCreated } from '../../src/notifications/mention-created.js';
import { aNotificationEvent } from '../support/events.js';
import { feedRecipient } from '../../src/core/model/recipient-ids.js';

const TTL_DAYS = 90;

describe('fan-out planning', () => {
  const event = aNotificationEvent({ eventId: 'evt-7', timeMs: Date.UTC(2026, 0, 1) });
  const rendered = renderNotification(mentionCreated, event);

  it('renders title and body from the type and keeps the event time', () => {
    expect(rendered).toMatchObject({ type: 'mention.created', title: 'Bob mentioned you', body: 'hey', createdAt: '2026-01-01T00:00:00.000Z' });
  });

  it('gives each recipient its deterministic id and an expiry from the arrival (here: the event time)', () => {
    const { writes, recipients } = planRecipientWrites(event, rendered, ['alice', 'carol'], TTL_DAYS, event.timeMs);
    expect(recipients).toEqual([
      { userId: 'alice', notificationId: notificationId({ tenantId: 'acme', type: 'mention.created', eventId: 'evt-7', recipient: 'alice', timeMs: event.timeMs }) },
      { userId: 'carol', notificationId: notificationId({ tenantId: 'acme', type: 'mention.created', eventId: 'evt-7', recipient: 'carol', timeMs: event.timeMs }) },
    ]);
    expect(writes[0]).toMatchObject({ source: { kind: 'own', tenantId: 'acme', userId: 'alice' }, item: { id: recipients[0]!.notificationId, expiresAt: event.timeMs / 1000 + TTL_DAYS * 86_400 } });
    expect(planRecipientWrites(event, rendered, ['alice'], TTL_DAYS, event.timeMs)).toEqual(planRecipientWrites(event, rendered, ['alice'], TTL_DAYS, event.timeMs));
  });

  it('writes a celebrity event once per shard with one id', () => {
    const post = aNotificationEvent({ type: 'post.published', data: { postId: 'p', title: 't' }, followersOf: 'star', recipients: [] });
    const { writes, notificationId: id } = planFeedWrites(post, renderNotification(postPublished, post), 'star', 4, TTL_DAYS, post.timeMs);
    expect(writes.map((write) => write.source)).toEqual([0, 1, 2, 3].map((shard) => ({ kind: 'feed', tenantId: 'acme', actorId: 'star', shard })));
    expect(new Set(writes.map((write) => write.item.id))).toEqual(new Set([id]));
    expect(id).toBe(notificationId({ tenantId: 'acme', type: 'post.published', eventId: post.eventId, recipient: feedRecipient('star'), timeMs: post.timeMs }));
  });

  it('packs at most 100 recipients per job, all valid against the contract', () => {
    const userIds = Array.from({ length: 250 }, (_, i) => `u${i}`);
    const { recipients } = planRecipientWrites(event, rendered, userIds, TTL_DAYS, event.timeMs);
    const jobs = planRecipientJobs(event, rendered, recipients);
    expect(jobs.map((job) => (job.target.kind === 'recipients' ? job.target.recipients.length : 0))).toEqual([MAX_RECIPIENTS_PER_JOB, MAX_RECIPIENTS_PER_JOB, 50]);
    for (const job of jobs) expect(deliveryJobSchema.parse(job)).toEqual(job);
    expect(jobs[0]).toMatchObject({ v: 1, tenantId: 'acme', eventId: 'evt-7', priority: 'urgent' });
  });

  it('targets online followers for a celebrity event', () => {
    const job = planOnlineFollowersJob(event, rendered, 'star', notificationId({ tenantId: 'acme', type: 'post.published', eventId: 'e', recipient: 'feed#star', timeMs: event.timeMs }));
    expect(deliveryJobSchema.parse(job).target).toMatchObject({ kind: 'onlineFollowers', actorId: 'star' });
  });
});
