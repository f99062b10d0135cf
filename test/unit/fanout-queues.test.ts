import { describe, expect, it } from 'vitest';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { SqsDeliveryJobQueue } from '../../src/adapters/sqs/sqs-delivery-job-queue.js';
import { SqsPromotionQueue } from '../../src/adapters/sqs/sqs-promotion-queue.js';
import { Logger } from '@aws-lambda-powertools/logger';
import { ConfigError } from '../../src/app/config-parsing.js';
import { ENV, FAN_OUT_QUEUE_URL_ENV, type Env } from '../../src/env.js';
import { fanOutConfigFromEnv, fanOutService, unusedFanOutQueue } from '../../src/app/fan-out.js';
import { createParts } from '../../src/app/parts.js';
import { fanOutQueueNeeds } from '../../src/core/fanout/fanout-queues.js';
import type { FanOutDeps, FanOutService } from '../../src/core/fanout/fanout-service.js';
import type { NotificationType } from '../../src/core/ports/notification-type.js';
import { catalog, findNotificationType } from '../../src/notifications/index.js';

/** The fan-out service of `type` composed from `env` (src/app/fan-out.ts), without `sendAt`. */
function fanOutServiceFromEnv(env: Env, clients: unknown, type: NotificationType): FanOutService {
  const config = fanOutConfigFromEnv({ [ENV.NOTIFICATION_TYPE]: type.detailType, [ENV.IDEMPOTENCY_TABLE]: 'idempotency', [ENV.DELIVERY_JOB_SECRET]: 'test-job-secret', ...env }, { sendAt: false });
  return fanOutService(createParts({ logger: new Logger({ logLevel: 'SILENT' }) }), config, type);
}

describe('fanOutQueueNeeds', () => {
  it('gives a notifying type both delivery queues (the event may override the priority) and a graph effect the promotion queue', () => {
    const shipped = {
      'mention.created': ['urgent', 'info'],
      'comment.created': ['urgent', 'info'],
      'post.published': ['urgent', 'info'],
      // Promotes when the new count reaches the threshold.
      'follow.created': ['urgent', 'info', 'promotion'],
      // Notifies nobody; promotes only on a stale tier (count still at or over the threshold).
      'follow.deleted': ['promotion'],
      // Notifies nobody; its `retracted` pushes are urgent delivery jobs.
      'notification.retracted': ['urgent'],
    };
    // The shipped types exactly; a type added by the recipe in docs/construct-library.md follows the same rule.
    expect(Object.fromEntries(catalog.filter((type) => type.detailType in shipped).map((type) => [type.detailType, fanOutQueueNeeds(type)]))).toEqual(shipped);
    for (const type of catalog.filter((candidate) => !(candidate.detailType in shipped))) {
      expect(fanOutQueueNeeds(type)).toEqual([...(type.audience !== 'none' ? ['urgent', 'info'] : type.retraction ? ['urgent'] : []), ...(type.graphEffect ? ['promotion'] : [])]);
    }
  });

  it('fails loudly, naming the type, the queue and the fix, when a type sends to a queue it was not given', async () => {
    await expect(unusedFanOutQueue(['urgent', 'info'], 'follow.deleted').enqueue([])).rejects.toThrow(
      /follow\.deleted sent to the urgent \/ info queue.*no URGENT_QUEUE_URL \/ INFO_QUEUE_URL.*fanOutQueueNeeds/,
    );
  });
});

describe('fanOutServiceFromEnv', () => {
  const clients = { documentClient: DynamoDBDocumentClient.from(new DynamoDBClient({})), dynamoClient: new DynamoDBClient({}), sqsClient: new SQSClient({}) };
  const tables = { INBOX_TABLE: 'inbox', READ_MARKS_TABLE: 'read-marks', GRAPH_TABLE: 'graph', IDEMPOTENCY_TABLE: 'idempotency' };
  const portsOf = (service: FanOutService) => (service as unknown as { deps: FanOutDeps }).deps;

  it('requires exactly the queue URLs of the type and gives every other queue a port that throws', async () => {
    for (const type of catalog) {
      const needs = fanOutQueueNeeds(type);
      const urls = Object.fromEntries(needs.map((queue) => [FAN_OUT_QUEUE_URL_ENV[queue], `https://sqs/${queue}`]));
      const ports = portsOf(fanOutServiceFromEnv({ ...tables, ...urls }, clients, type));
      if (needs.includes('urgent')) expect(ports.deliveryQueue, type.detailType).toBeInstanceOf(SqsDeliveryJobQueue);
      else await expect(ports.deliveryQueue.enqueue([]), type.detailType).rejects.toThrow(/never uses/);
      if (needs.includes('promotion')) expect(ports.promotionQueue, type.detailType).toBeInstanceOf(SqsPromotionQueue);
      else await expect(ports.promotionQueue.enqueue({ v: 1, tenantId: 't', celebrityId: 'c' }), type.detailType).rejects.toThrow(/never uses/);
      for (const queue of needs) {
        const { [FAN_OUT_QUEUE_URL_ENV[queue]]: _missing, ...without } = urls;
        expect(() => fanOutServiceFromEnv({ ...tables, ...without }, clients, type), `${type.detailType} without ${queue}`).toThrow(ConfigError);
      }
    }
  });

  it('builds follow.deleted without any delivery queue URL', () => {
    expect(() => fanOutServiceFromEnv({ ...tables, PROMOTION_QUEUE_URL: 'https://sqs/promotion' }, clients, findNotificationType('follow.deleted')!)).not.toThrow();
  });
});
