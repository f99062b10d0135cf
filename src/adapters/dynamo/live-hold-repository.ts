/**
 * Idempotency table: per-user live-push counters of a rate-limit window (`T#t#U#u#RATE#<start>`)
 * and held pushes of one release instant (`T#t#U#u#HOLD#<releaseAt>`), both with a TTL (`expiration`),
 * both in the owner index (`userRef`), where the user's erasure finds them.
 */

import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys, OWNER_INDEX, ownerIndexValue } from '../../core/model/keys.js';
import { MAX_HELD_PER_RELEASE } from '../../core/live/live-gate.js';
import type { HoldOutcome, LiveHoldStore, StoredHeldPush } from '../../core/ports/live.js';
import type { UserRef } from '../../core/model/user.js';

/** A released hold stays (refusing late holds) this long after its release instant. */
const RELEASED_HOLD_RETENTION_SECONDS = 2 * 86_400;

export class LiveHoldRepository implements LiveHoldStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** countPushes: one UpdateItem ADD on the window's counter; returns the new total. */
  async countPushes(user: UserRef, windowStartMs: number, count: number, expiresAtSeconds: number): Promise<number> {
    const output = await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { id: keys.rateWindowId(user.tenantId, user.userId, windowStartMs) },
        UpdateExpression: 'ADD pushCount :count SET expiration = if_not_exists(expiration, :expiration), #owner = :owner',
        ExpressionAttributeNames: { '#owner': OWNER_INDEX.attribute },
        ExpressionAttributeValues: { ':count': count, ':expiration': expiresAtSeconds, ':owner': ownerIndexValue(user.tenantId, user.userId) },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return Number(output.Attributes?.pushCount ?? count);
  }

  /**
   * hold: one UpdateItem appending to `held`, guarded by `attribute_not_exists(released)`; a full
   * hold (MAX_HELD_PER_RELEASE) only counts the overflow (those stay in the inbox, unpushed).
   */
  async hold(user: UserRef, releaseAtMs: number, pushes: readonly StoredHeldPush[], expiresAtSeconds: number): Promise<HoldOutcome> {
    const id = keys.liveHoldId(user.tenantId, user.userId, releaseAtMs);
    try {
      const output = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { id },
          UpdateExpression: 'SET held = list_append(if_not_exists(held, :empty), :pushes), expiration = :expiration, #owner = :owner ADD heldCount :count',
          ConditionExpression: 'attribute_not_exists(released) AND (attribute_not_exists(held) OR size(held) < :cap)',
          ExpressionAttributeNames: { '#owner': OWNER_INDEX.attribute },
          ExpressionAttributeValues: { ':empty': [], ':pushes': pushes, ':expiration': expiresAtSeconds, ':count': pushes.length, ':cap': MAX_HELD_PER_RELEASE, ':owner': ownerIndexValue(user.tenantId, user.userId) },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return { status: 'held', scheduled: output.Attributes?.scheduled === true };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
    // Released already, or full: tell which, counting the overflow of a full hold.
    try {
      const output = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { id },
          UpdateExpression: 'ADD heldCount :count',
          ConditionExpression: 'attribute_exists(held) AND attribute_not_exists(released)',
          ExpressionAttributeValues: { ':count': pushes.length },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return { status: 'held', scheduled: output.Attributes?.scheduled === true };
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return { status: 'released' };
      throw error;
    }
  }

  /** markScheduled: SET scheduled = true. */
  async markScheduled(user: UserRef, releaseAtMs: number): Promise<void> {
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { id: keys.liveHoldId(user.tenantId, user.userId, releaseAtMs) },
        UpdateExpression: 'SET scheduled = :true, #owner = :owner',
        ExpressionAttributeNames: { '#owner': OWNER_INDEX.attribute },
        ExpressionAttributeValues: { ':true': true, ':owner': ownerIndexValue(user.tenantId, user.userId) },
      }),
    );
  }

  /** release: SET released = true, returning the held pushes (a missing hold answers none). */
  async release(user: UserRef, releaseAtMs: number): Promise<StoredHeldPush[]> {
    const output = await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { id: keys.liveHoldId(user.tenantId, user.userId, releaseAtMs) },
        UpdateExpression: 'SET released = :true, expiration = if_not_exists(expiration, :expiration), #owner = :owner',
        ExpressionAttributeNames: { '#owner': OWNER_INDEX.attribute },
        ExpressionAttributeValues: { ':true': true, ':expiration': Math.ceil(releaseAtMs / 1000) + RELEASED_HOLD_RETENTION_SECONDS, ':owner': ownerIndexValue(user.tenantId, user.userId) },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return (output.Attributes?.held ?? []) as StoredHeldPush[];
  }
}
