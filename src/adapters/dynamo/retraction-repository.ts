/** Inbox table: the tenant's retraction records (`T#<tenant>#RETRACTIONS`), one per retracted event. */
import { PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../core/model/keys.js';
import type { Retraction, RetractionStore, RetractionsReader } from '../../core/ports/inbox.js';

export class RetractionRepository implements RetractionStore, RetractionsReader {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** recordRetraction: one PutItem in the tenant's retraction partition (a retry rewrites the same item). */
  async recordRetraction(retraction: Retraction, expiresAtEpochSeconds: number): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...keys.retraction(retraction.tenantId, retraction.type, retraction.eventId, retraction.arrivalMs),
          type: retraction.type,
          eventId: retraction.eventId,
          arrivalMs: retraction.arrivalMs,
          expiresAt: expiresAtEpochSeconds,
        },
      }),
    );
  }

  /** retractionsOf: one Query of the tenant's retraction partition (unexpired ones). */
  async retractionsOf(tenantId: string, nowMs: number): Promise<Retraction[]> {
    const found: Retraction[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const output = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': keys.retractionsPartition(tenantId) },
          ...(startKey ? { ExclusiveStartKey: startKey } : {}),
        }),
      );
      for (const item of output.Items ?? []) {
        if (typeof item.expiresAt === 'number' && item.expiresAt * 1000 <= nowMs) continue;
        found.push({ tenantId, type: item.type as string, eventId: item.eventId as string, arrivalMs: item.arrivalMs as number });
      }
      startKey = output.LastEvaluatedKey;
    } while (startKey);
    return found;
  }
}
