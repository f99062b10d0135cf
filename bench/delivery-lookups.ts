/**
 * The lookups of the live-delivery bench: the DynamoDB requests delivery needs to find R recipients'
 * connections (batched presence reads), against a baseline of one Query per recipient partition.
 */
import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ConnectionRepository } from '../src/adapters/dynamo/connection-repository.js';
import { createDocumentClient } from '../src/adapters/dynamo/document-client.js';
import { DynamoDeliveryLedger } from '../src/adapters/dynamo/delivery-ledger.js';
import { RequestMeter } from '../src/adapters/dynamo/request-meter.js';
import { MAX_RECIPIENTS_PER_JOB, type DeliveryJob } from '../src/core/jobs/delivery-job.js';
import { notificationId } from '../src/core/model/ids.js';
import { connectionIdFromSortKey, keys } from '../src/core/model/keys.js';
import { LiveDelivery } from '../src/core/live/live-delivery.js';
import type { ConnectionDirectory, ConnectionTarget } from '../src/core/ports/live.js';
import type { UserRef } from '../src/core/model/user.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION, startEmbeddedDynamo } from '../src/local/embedded-dynamo.js';

/** The baseline: one Query of each recipient's partition (`C#` items) instead of batched presence reads. */
class PerUserQueryDirectory implements Pick<ConnectionDirectory, 'connectionsOf'> {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async connectionsOf(users: readonly UserRef[]): Promise<ConnectionTarget[]> {
    const results = await Promise.all(
      users.map(async (user) => {
        const output = await this.client.send(
          new QueryCommand({
            TableName: this.tableName,
            KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
            ExpressionAttributeValues: { ':pk': keys.presence(user.tenantId, user.userId).pk, ':prefix': 'C#' },
          }),
        );
        return (output.Items ?? []).flatMap((item) => {
          const connectionId = connectionIdFromSortKey(item.sk as string);
          return connectionId ? [{ ...user, connectionId }] : [];
        });
      }),
    );
    return results.flat();
  }
}

export interface LookupFigures {
  batchGets: number;
  allRequests: number;
  baselineQueries: number;
  messages: number;
}

/** `recipientCount` recipients (each with one connection) in jobs of 100, delivered as one queue batch. */
export async function measureLookups(recipientCount: number, tenantId: string): Promise<LookupFigures> {
  const dynamo = await startEmbeddedDynamo();
  const client = createDocumentClient({ endpoint: dynamo.endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  const meter = new RequestMeter();
  meter.attach(client);
  try {
    const connections = new ConnectionRepository(client, dynamo.tableNames.connections);
    const users = Array.from({ length: recipientCount }, (_, i): UserRef => ({ tenantId, userId: `r${i}` }));
    for (let i = 0; i < users.length; i += 50) {
      await Promise.all(users.slice(i, i + 50).map((user, j) => connections.registerConnection({ ...user, connectionId: `conn${i + j}AAAAAA=`, celebrityIds: [] })));
    }
    const timeMs = Date.now();
    const jobs: DeliveryJob[] = [];
    for (let i = 0; i < users.length; i += MAX_RECIPIENTS_PER_JOB) {
      jobs.push({
        v: 1,
        tenantId,
        eventId: 'evt-lookups',
        priority: 'urgent',
        notification: { type: 'mention.created', createdAt: new Date(timeMs).toISOString(), actor: { id: 'author' }, title: 't', body: 'b', data: {} },
        target: {
          kind: 'recipients',
          recipients: users.slice(i, i + MAX_RECIPIENTS_PER_JOB).map((user) => ({ userId: user.userId, notificationId: notificationId({ tenantId, type: 'mention.created', eventId: 'evt-lookups', recipient: user.userId, timeMs }) })),
        },
      });
    }
    let messages = 0;
    const delivery = new LiveDelivery({
      directory: connections,
      ledger: new DynamoDeliveryLedger(client, dynamo.tableNames.idempotency),
      pusher: { post: async () => ((messages += 1), 'sent') },
      isDigestible: () => false,
    });
    meter.reset();
    await delivery.deliver(jobs.map((job, i) => ({ recordId: `record-${i}`, job })), 'urgent');
    const withPresence = meter.snapshot();

    meter.reset();
    const baseline = new PerUserQueryDirectory(client, dynamo.tableNames.connections);
    for (const job of jobs) {
      if (job.target.kind === 'recipients') await baseline.connectionsOf(job.target.recipients.map((recipient) => ({ tenantId, userId: recipient.userId })));
    }
    const baselineFigures = meter.snapshot();
    return {
      batchGets: withPresence.byCommand.BatchGetItemCommand ?? 0,
      allRequests: withPresence.requests,
      baselineQueries: baselineFigures.byCommand.QueryCommand ?? 0,
      messages,
    };
  } finally {
    client.destroy();
    await dynamo.close();
  }
}
