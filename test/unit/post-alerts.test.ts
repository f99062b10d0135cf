/** Post alert pages: bounded (<= 1,000 devices), only current followers, the id each follower sees, the next page's job; forged jobs dropped; K platform applications. */
import { describe, expect, it } from 'vitest';
import { ALERT_DEVICES_PER_JOB, ALERT_SUBSCRIBERS_PER_JOB, alertPage } from '../../src/core/channels/post-alerts.js';
import { MAX_DEVICES_PER_USER, platformApplicationIndex } from '../../src/core/channels/devices.js';
import { SnsPushProvider } from '../../src/adapters/sns/sns-push-provider.js';
import type { AlertJob } from '../../src/core/jobs/alert-job.js';
import { signedDeliveryJobBody } from '../../src/core/jobs/delivery-job-signature.js';
import { idOfEventFor } from '../../src/core/model/recipient-ids.js';
import type { Follower } from '../../src/core/ports/follow-graph.js';
import { createChannelHandler } from '../../src/handlers/channel-handler.js';
import { Logger } from '@aws-lambda-powertools/logger';
import { anSqsEvent, anSqsRecord } from '../support/events.js';

const ARRIVAL = Date.parse('2026-11-26T09:00:00.000Z');
const job = (mode: 'ordinary' | 'celebrity', after?: string): AlertJob => ({
  v: 1,
  tenantId: 'acme',
  eventId: 'post-1',
  priority: 'info',
  notification: { type: 'post.published', createdAt: '', actor: { id: 'star' }, title: 'STAR published a post', body: 'b', data: {} },
  alerts: { actorId: 'star', arrivalMs: ARRIVAL, mode, page: after ? 1 : 0, ...(after ? { after } : {}) },
});

function fakes(subscribers: string[], unfollowed: string[] = []) {
  const pages: (string | undefined)[] = [];
  const deps = {
    subscriptions: {
      async listSubscribers(_tenant: string, _account: string, after: string | undefined, limit: number) {
        pages.push(after);
        const from = after === undefined ? 0 : subscribers.indexOf(after) + 1;
        const followerIds = subscribers.slice(from, from + limit);
        return { followerIds, ...(from + limit < subscribers.length ? { next: followerIds[followerIds.length - 1]! } : {}) };
      },
    },
    graph: { getFollowers: async (_t: string, _a: string, ids: readonly string[]) => new Map<string, Follower>(ids.filter((id) => !unfollowed.includes(id)).map((id) => [id, { followerId: id, followedAt: '2026-01-01T00:00:00Z', history: [] }])) },
    queue: { enqueue: async () => undefined },
  };
  return { deps, pages };
}

describe('alertPage', () => {
  it('takes at most 50 subscribers (20 devices each: 1,000 devices) and names the next page; 120 subscribers are 3 jobs', async () => {
    const subscribers = Array.from({ length: 120 }, (_, i) => `u${String(i).padStart(3, '0')}`);
    const { deps } = fakes(subscribers);
    const sizes: number[] = [];
    let current: AlertJob | undefined = job('ordinary');
    while (current) {
      const page = await alertPage(deps, 'r', current);
      sizes.push(page.inputs.length);
      current = page.next;
    }
    expect(ALERT_SUBSCRIBERS_PER_JOB * MAX_DEVICES_PER_USER).toBeLessThanOrEqual(ALERT_DEVICES_PER_JOB);
    expect(sizes).toEqual([50, 50, 20]);
  });

  it('skips subscribers who unfollowed since; ordinary posts push each follower their own id, celebrity posts the feed id', async () => {
    const { deps } = fakes(['ann', 'bea', 'cal'], ['bea']);
    const ordinary = await alertPage(deps, 'r', job('ordinary'));
    const celebrity = await alertPage(deps, 'r', job('celebrity'));
    const event = { type: 'post.published', eventId: 'post-1', arrivalMs: ARRIVAL };
    const idsOf = (page: typeof ordinary) => page.inputs.map((input) => (input.job.target.kind === 'recipients' ? input.job.target.recipients[0]! : undefined));
    expect(idsOf(ordinary)).toEqual([{ userId: 'ann', notificationId: idOfEventFor('acme', event, { userId: 'ann' }) }, { userId: 'cal', notificationId: idOfEventFor('acme', event, { userId: 'cal' }) }]);
    expect(idsOf(celebrity).map((recipient) => recipient?.notificationId)).toEqual([idOfEventFor('acme', event, { actorId: 'star' }), idOfEventFor('acme', event, { actorId: 'star' })]);
    expect(ordinary.inputs.every((input) => input.job.alert === true)).toBe(true);
  });
});

describe('the push consumer and alert jobs', () => {
  it('pages a signed alert job and enqueues the next page; drops a forged one unsent', async () => {
    const { deps } = fakes(Array.from({ length: 60 }, (_, i) => `u${i}`));
    const delivered: string[] = [];
    const enqueued: AlertJob[] = [];
    const handler = createChannelHandler({
      delivery: { deliver: async (inputs) => (delivered.push(...inputs.map((input) => input.recordId)), { failedRecordIds: new Set(), messagesSent: inputs.length, duplicatesSkipped: 0, held: 0, skipped: {}, devicesRemoved: 0 }) },
      channel: 'push',
      deliveryJobSecret: 'secret',
      logger: new Logger({ logLevel: 'SILENT' }),
      alerts: { page: (recordId, alert) => alertPage(deps, recordId, alert), enqueue: async (next) => void enqueued.push(next) },
    });
    const signed = anSqsRecord(signedDeliveryJobBody(job('ordinary'), 'secret'), 'm1');
    const forged = anSqsRecord(signedDeliveryJobBody(job('ordinary'), 'not-the-secret'), 'm2');
    const answer = await handler(anSqsEvent([signed, forged]));
    expect(answer.batchItemFailures).toEqual([]);
    expect(delivered).toHaveLength(50);
    expect(new Set(delivered)).toEqual(new Set(['m1']));
    expect(enqueued.map((next) => next.alerts.page)).toEqual([1]);
  });
});

describe('K platform applications per platform', () => {
  it('a token sticks to one application; 10,000 tokens spread within 10% of even over 4', () => {
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 10_000; i += 1) counts[platformApplicationIndex(`token-${i}`, 4)]! += 1;
    expect(platformApplicationIndex('token-a', 4)).toBe(platformApplicationIndex('token-a', 4));
    expect(platformApplicationIndex('token-a', 1)).toBe(0);
    for (const count of counts) expect(Math.abs(count - 2_500)).toBeLessThan(250);
  });

  it('SnsPushProvider registers a token under the application it hashes to, whoever registers it (one endpoint, one owner)', async () => {
    const apps = ['arn:aws:sns:eu-west-1:1:app/GCM/p0', 'arn:aws:sns:eu-west-1:1:app/GCM/p1', 'arn:aws:sns:eu-west-1:1:app/GCM/p2'];
    const created: string[] = [];
    const client = { send: async (command: { input: { PlatformApplicationArn?: string } }) => (command.input.PlatformApplicationArn ? (created.push(command.input.PlatformApplicationArn), { EndpointArn: 'arn:e' }) : { Attributes: { Enabled: 'true', Token: 't' } }) };
    const provider = new SnsPushProvider(client as never, { fcm: apps });
    await provider.findOrCreateEndpoint('fcm', 'phone-token', { tenantId: 'acme', userId: 'alice' });
    await provider.findOrCreateEndpoint('fcm', 'phone-token', { tenantId: 'globex', userId: 'bob' });
    const index = platformApplicationIndex('phone-token', 3);
    expect(created).toEqual([apps[index], apps[index]]);
    expect(provider.platforms()).toEqual(['fcm']);
  });
});
