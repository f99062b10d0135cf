/**
 * Idempotency table: the SMS opt-out list (a record per number that said STOP, keyed by a digest of
 * the number, no TTL) and the spend guards' day counters (one per user per UTC day, in the owner
 * index so the user's erasure finds it; one per day in all). Both guards are conditional UpdateItems
 * that count before the send and refuse at the limit.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SmsOptOutList, SmsSpendGuard } from '../../core/channels/ports.js';
import type { SmsSpendLimits } from '../../core/channels/sms.js';
import { keys, OWNER_INDEX, ownerIndexValue } from '../../core/model/keys.js';
import type { UserRef } from '../../core/model/user.js';

/** Day counters outlive their day by this much (TTL). */
const DAY_COUNTER_RETENTION_SECONDS = 2 * 86_400;

export class DynamoSmsOptOutList implements SmsOptOutList {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** isOptedOut: one consistent GetItem of the number's record. */
  async isOptedOut(phoneNumber: string): Promise<boolean> {
    const answer = await this.client.send(new GetCommand({ TableName: this.tableName, Key: { id: keys.smsOptOutId(phoneNumber) }, ConsistentRead: true, ProjectionExpression: 'id' }));
    return answer.Item !== undefined;
  }

  /** optOut: PutItem (idempotent; the first time is kept: a repeat STOP changes nothing). */
  async optOut(phoneNumber: string, atIso: string, source: 'inbound_stop' | 'provider'): Promise<void> {
    try {
      await this.client.send(new PutCommand({ TableName: this.tableName, Item: { id: keys.smsOptOutId(phoneNumber), optedOutAt: atIso, source }, ConditionExpression: 'attribute_not_exists(id)' }));
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }
}

export class DynamoSmsSpendGuard implements SmsSpendGuard {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /**
   * admit: the user's day counter first (adds the message to its set unless it is there already:
   * a retried record counts once), then the day's total (a plain count). A total at its limit after
   * the user's count leaves that count one high: the guards err towards sending less.
   */
  async admit(user: UserRef, dayStartMs: number, messageKey: string, limits: SmsSpendLimits): Promise<'admitted' | 'user_limit' | 'global_limit'> {
    const expiration = Math.floor(dayStartMs / 1000) + 86_400 + DAY_COUNTER_RETENTION_SECONDS;
    const userKey = { id: keys.smsUserDayId(user.tenantId, user.userId, dayStartMs) };
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: userKey,
          UpdateExpression: 'ADD sends :one, messages :message SET expiration = :expiration, #owner = :owner',
          ConditionExpression: '(attribute_not_exists(sends) OR sends < :limit) AND NOT contains(messages, :messageKey)',
          ExpressionAttributeNames: { '#owner': OWNER_INDEX.attribute },
          ExpressionAttributeValues: { ':one': 1, ':message': new Set([messageKey]), ':messageKey': messageKey, ':limit': limits.perUserPerDay, ':expiration': expiration, ':owner': ownerIndexValue(user.tenantId, user.userId) },
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      const current = await this.client.send(new GetCommand({ TableName: this.tableName, Key: userKey, ConsistentRead: true, ProjectionExpression: 'messages' }));
      const counted = current.Item?.messages;
      // A retry of a message admitted before: it was counted in the total too.
      if (counted instanceof Set && counted.has(messageKey)) return 'admitted';
      return 'user_limit';
    }
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { id: keys.smsSpendDayId(dayStartMs) },
          UpdateExpression: 'ADD sends :one SET expiration = :expiration',
          ConditionExpression: 'attribute_not_exists(sends) OR sends < :limit',
          ExpressionAttributeValues: { ':one': 1, ':limit': limits.perDay, ':expiration': expiration },
        }),
      );
      return 'admitted';
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      return 'global_limit';
    }
  }
}
