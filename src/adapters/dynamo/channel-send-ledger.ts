/**
 * Idempotency table: the channels' dedup records (one per push device send or email, 30-day TTL,
 * written with a condition before the send) and their per-user rate counters, both in the owner
 * index (`userRef`), where the user's erasure finds them.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys, OWNER_INDEX, ownerIndexValue } from '../../core/model/keys.js';
import type { ChannelDedupStore, ChannelRateCounter, ChannelSendKey, SendingClaim } from '../../core/channels/ports.js';
import type { UserRef } from '../../core/model/user.js';
import { systemClock, type Clock } from '../../core/ports/clock.js';
import { claimIfAbsentOrExpired } from './conditional-claim.js';

/** A producer re-publishing within a month, or a DLQ redriven within SQS's 14-day retention, never sends twice. */
export const CHANNEL_SEND_TTL_SECONDS = 30 * 86_400;

const idOf = (key: ChannelSendKey) => keys.channelSendId(key.tenantId, key.userId, key.channel, key.notificationId, key.deviceId);

export class ChannelSendLedger implements ChannelDedupStore, ChannelRateCounter {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly clock: Clock = systemClock,
  ) {}

  /** claim: PutItem if no unexpired record exists; errors propagate (the consumer fails closed). */
  async claim(key: ChannelSendKey): Promise<boolean> {
    const now = Math.floor(this.clock.nowMs() / 1000);
    return claimIfAbsentOrExpired(this.client, this.tableName, { id: idOf(key), expiration: now + CHANNEL_SEND_TTL_SECONDS, claimedAt: now, [OWNER_INDEX.attribute]: ownerIndexValue(key.tenantId, key.userId) }, now);
  }

  /** release: DeleteItem, after a send the provider throttled (the retry claims again). */
  async release(key: ChannelSendKey): Promise<void> {
    await this.client.send(new DeleteCommand({ TableName: this.tableName, Key: { id: idOf(key) } }));
  }

  /**
   * claimSending: PutItem `status = sending` unless an unexpired record holds the key and is `sent`
   * (or an at-most-once claim), or `sending` since less than `staleAfterMs`; a refused claim costs one
   * GetItem more to say which (dynalite answers no ReturnValuesOnConditionCheckFailure).
   */
  async claimSending(key: ChannelSendKey, staleAfterMs: number): Promise<SendingClaim> {
    const nowMs = this.clock.nowMs();
    const now = Math.floor(nowMs / 1000);
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          // In the owner index (userRef), where the user's erasure finds it.
          Item: { id: idOf(key), expiration: now + CHANNEL_SEND_TTL_SECONDS, claimedAt: now, status: 'sending', sendingSince: nowMs, [OWNER_INDEX.attribute]: ownerIndexValue(key.tenantId, key.userId) },
          ConditionExpression: 'attribute_not_exists(id) OR expiration <= :now OR (#status = :sending AND sendingSince <= :stale)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':now': now, ':sending': 'sending', ':stale': nowMs - staleAfterMs },
        }),
      );
      return 'claimed';
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
    const held = await this.client.send(new GetCommand({ TableName: this.tableName, Key: { id: idOf(key) }, ConsistentRead: true }));
    // Gone between the two calls (a release): another attempt is at it; retry later.
    if (!held.Item) return 'sending';
    return held.Item.status === 'sending' ? 'sending' : 'sent';
  }

  /** markSent: UpdateItem `status = sent` (the provider answered; the claim stays as the dedup record). */
  async markSent(key: ChannelSendKey): Promise<void> {
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { id: idOf(key) },
        UpdateExpression: 'SET #status = :sent REMOVE sendingSince',
        ConditionExpression: 'attribute_exists(id)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':sent': 'sent' },
      }),
    );
  }

  /**
   * admitMessage: one conditional UpdateItem on the window's counter adds the message to its set of
   * counted messages and its count, unless the message is in the set already or the count is at the
   * limit; when the condition fails, a consistent GetItem of the set tells a retry from a message over the limit.
   */
  async admitMessage(user: UserRef, channel: string, windowStartMs: number, messageKey: string, limit: number, expiresAtSeconds: number): Promise<'counted' | 'already_counted' | 'over_limit'> {
    const key = { id: keys.channelRateWindowId(user.tenantId, user.userId, channel, windowStartMs) };
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: key,
          // In the owner index (userRef), where the user's erasure finds it.
          UpdateExpression: 'ADD sends :one, messages :message SET expiration = :expiration, #owner = :owner',
          ConditionExpression: '(attribute_not_exists(sends) OR sends < :limit) AND NOT contains(messages, :messageKey)',
          ExpressionAttributeNames: { '#owner': OWNER_INDEX.attribute },
          ExpressionAttributeValues: { ':one': 1, ':message': new Set([messageKey]), ':messageKey': messageKey, ':limit': limit, ':expiration': expiresAtSeconds, ':owner': ownerIndexValue(user.tenantId, user.userId) },
        }),
      );
      return 'counted';
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
    const current = await this.client.send(new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true, ProjectionExpression: 'messages' }));
    const counted = current.Item?.messages;
    return counted instanceof Set && counted.has(messageKey) ? 'already_counted' : 'over_limit';
  }
}
