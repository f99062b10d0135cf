/**
 * Idempotency table: the SMS opt-out list (a record per number that said STOP or START, keyed by a
 * digest of the number: a STOP's without TTL, a START's kept 30 days), the keyword answers (one per
 * number, keyword and UTC day, TTL) and the spend guards' day counters (one per user per UTC day, in
 * the owner index so the user's erasure finds it; one per day in all). The list's writes are
 * conditional on when the word was said (the later wins, an opt-out at a tie); the guards are
 * conditional UpdateItems that count before the send and refuse at the limit.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SmsAnswerGuard, SmsOptOutList, SmsOptOutState, SmsSpendGuard } from '../../core/channels/ports.js';
import { SMS_OPTED_IN_RETENTION_SECONDS, type SmsSpendLimits } from '../../core/channels/sms.js';
import { keys, OWNER_INDEX, ownerIndexValue } from '../../core/model/keys.js';
import type { UserRef } from '../../core/model/user.js';

/** Day counters and answer records outlive their day by this much (TTL). */
const DAY_COUNTER_RETENTION_SECONDS = 2 * 86_400;

export class DynamoSmsOptOutList implements SmsOptOutList {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** isOptedOut: one consistent GetItem of the number's record (a record from before `optedOut` was kept is an opt-out). */
  async isOptedOut(phoneNumber: string): Promise<boolean> {
    return (await this.stateOf(phoneNumber))?.optedOut ?? false;
  }

  /** stateOf: one consistent GetItem. */
  async stateOf(phoneNumber: string): Promise<SmsOptOutState | undefined> {
    const answer = await this.client.send(new GetCommand({ TableName: this.tableName, Key: { id: keys.smsOptOutId(phoneNumber) }, ConsistentRead: true, ProjectionExpression: 'optedOut, changedAtMs' }));
    if (!answer.Item) return undefined;
    const changedAtMs = answer.Item.changedAtMs;
    return { optedOut: answer.Item.optedOut !== false, ...(typeof changedAtMs === 'number' ? { changedAtMs } : {}) };
  }

  /** optOut: PutItem unless a later word is recorded (a STOP at the same instant as a START wins). No TTL: kept until a later START. */
  async optOut(phoneNumber: string, atMs: number, source: 'inbound_stop' | 'provider'): Promise<'recorded' | 'stale'> {
    return this.record(phoneNumber, atMs, { optedOut: true, source }, '<=');
  }

  /** optIn: PutItem unless a word as late or later is recorded; kept 30 days, so an older STOP delivered late still loses. */
  async optIn(phoneNumber: string, atMs: number): Promise<'recorded' | 'stale'> {
    return this.record(phoneNumber, atMs, { optedOut: false, source: 'inbound_start', expiration: Math.floor(atMs / 1000) + SMS_OPTED_IN_RETENTION_SECONDS }, '<');
  }

  private async record(phoneNumber: string, atMs: number, state: Record<string, unknown>, replaces: '<' | '<='): Promise<'recorded' | 'stale'> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { id: keys.smsOptOutId(phoneNumber), changedAtMs: atMs, changedAt: new Date(atMs).toISOString(), ...state },
          ConditionExpression: `attribute_not_exists(id) OR attribute_not_exists(changedAtMs) OR changedAtMs ${replaces} :at`,
          ExpressionAttributeValues: { ':at': atMs },
        }),
      );
      return 'recorded';
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      return 'stale';
    }
  }
}

/** One more text on the day's counter in all, unless it holds `limit` (ConditionalCheckFailed: at the limit). */
async function countInDay(client: DynamoDBDocumentClient, tableName: string, dayStartMs: number, limit: number, expiration: number): Promise<boolean> {
  try {
    await client.send(
      new UpdateCommand({
        TableName: tableName,
        Key: { id: keys.smsSpendDayId(dayStartMs) },
        UpdateExpression: 'ADD sends :one SET expiration = :expiration',
        ConditionExpression: 'attribute_not_exists(sends) OR sends < :limit',
        ExpressionAttributeValues: { ':one': 1, ':limit': limit, ':expiration': expiration },
      }),
    );
    return true;
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    return false;
  }
}

const dayExpiration = (dayStartMs: number) => Math.floor(dayStartMs / 1000) + 86_400 + DAY_COUNTER_RETENTION_SECONDS;

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
    const expiration = dayExpiration(dayStartMs);
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
    return (await countInDay(this.client, this.tableName, dayStartMs, limits.perDay, expiration)) ? 'admitted' : 'global_limit';
  }
}

export class DynamoSmsAnswerGuard implements SmsAnswerGuard {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** admitAnswer: PutItem of the (number, keyword, day) record if absent, then the day's counter in all (a refused count gives the record back). */
  async admitAnswer(phoneNumber: string, keyword: 'help' | 'stop' | 'start', dayStartMs: number, perDay: number): Promise<'admitted' | 'already_answered' | 'global_limit'> {
    const expiration = dayExpiration(dayStartMs);
    try {
      await this.client.send(new PutCommand({ TableName: this.tableName, Item: { id: keys.smsAnswerId(phoneNumber, keyword, dayStartMs), expiration }, ConditionExpression: 'attribute_not_exists(id)' }));
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      return 'already_answered';
    }
    if (await countInDay(this.client, this.tableName, dayStartMs, perDay, expiration)) return 'admitted';
    await this.releaseAnswer(phoneNumber, keyword, dayStartMs);
    return 'global_limit';
  }

  /** releaseAnswer: DeleteItem (the answer was not sent; its count in the day's total stays: the guard errs towards sending less). */
  async releaseAnswer(phoneNumber: string, keyword: 'help' | 'stop' | 'start', dayStartMs: number): Promise<void> {
    await this.client.send(new DeleteCommand({ TableName: this.tableName, Key: { id: keys.smsAnswerId(phoneNumber, keyword, dayStartMs) } }));
  }
}
