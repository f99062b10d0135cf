/**
 * Graph table: a user's channel state under `T#t#U#u#CHANNELS` — `DEVICE#<id>` per push device,
 * `PUSH_CONSENT`, `EMAIL` (the address), `EMAIL_OFF#<type>` per unsubscribe and `SMS` (the opt-in
 * with its verified number). The channel
 * consumers read it with one Query per user, uncached, so consent and unsubscribes apply at once.
 */
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { Device, PushConsent } from '../../core/channels/devices.js';
import { platformSchema } from '../../contract/channel-schemas.js';
import { keys } from '../../core/model/keys.js';
import type { ChannelState, ChannelStateStore } from '../../core/channels/ports.js';
import type { UserRef } from '../../core/model/user.js';
import type { SmsOptIn } from '../../core/channels/sms.js';

const COUNT_SK = 'DEVICE_COUNT';
const CONSENT_SK = 'PUSH_CONSENT';
const EMAIL_SK = 'EMAIL';
const EMAIL_OFF_PREFIX = 'EMAIL_OFF#';
const SMS_SK = 'SMS';
const DEVICE_PREFIX = 'DEVICE#';

function toDevice(item: Record<string, unknown>): Device | undefined {
  const platform = platformSchema.safeParse(item.platform);
  if (!platform.success || typeof item.deviceId !== 'string' || typeof item.token !== 'string' || typeof item.endpointArn !== 'string') return undefined;
  return {
    id: item.deviceId,
    platform: platform.data,
    token: item.token,
    ...(typeof item.locale === 'string' ? { locale: item.locale } : {}),
    endpointArn: item.endpointArn,
    createdAt: String(item.createdAt),
    updatedAt: String(item.updatedAt),
  };
}

export class ChannelRepository implements ChannelStateStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** channelState: one Query of the user's CHANNELS partition (at most 20 devices + a few items, one page). */
  async channelState(user: UserRef): Promise<ChannelState> {
    const items = await this.queryAll(user);
    const state: ChannelState = { devices: [], pushConsent: null, emailAddress: null, emailUnsubscribed: [], sms: null };
    for (const item of items) {
      const sk = String(item.sk);
      if (sk.startsWith(DEVICE_PREFIX)) {
        const device = toDevice(item);
        if (device) state.devices.push(device);
      } else if (sk === CONSENT_SK && typeof item.grantedAt === 'string' && typeof item.version === 'string') state.pushConsent = { grantedAt: item.grantedAt, version: item.version };
      else if (sk === EMAIL_SK && typeof item.address === 'string') state.emailAddress = item.address;
      else if (sk.startsWith(EMAIL_OFF_PREFIX)) state.emailUnsubscribed.push(sk.slice(EMAIL_OFF_PREFIX.length));
      else if (sk === SMS_SK && typeof item.phoneNumber === 'string' && typeof item.optedInAt === 'string' && typeof item.version === 'string') state.sms = { phoneNumber: item.phoneNumber, optedInAt: item.optedInAt, version: item.version };
    }
    return state;
  }

  /** listDevices: Query of the DEVICE# items. */
  async listDevices(user: UserRef): Promise<Device[]> {
    return (await this.queryAll(user, DEVICE_PREFIX)).flatMap((item) => toDevice(item) ?? []);
  }

  /**
   * putDevice: a known device (same token) is overwritten. A new one first reserves a slot on the
   * user's device counter (conditional UpdateItem: below the cap), then is put (conditional on being
   * new; a racing registration of the same token gives the slot back). No transaction: dynalite and
   * LocalStack's free tier lack TransactWriteItems, and a lost slot after a crash only errs on the safe side.
   */
  async putDevice(user: UserRef, device: Device, maxDevices: number): Promise<boolean> {
    const pk = keys.channelStatePartition(user.tenantId, user.userId);
    const item = { pk, sk: keys.deviceSortKey(device.id), deviceId: device.id, platform: device.platform, token: device.token, endpointArn: device.endpointArn, createdAt: device.createdAt, updatedAt: device.updatedAt, ...(device.locale ? { locale: device.locale } : {}) };
    const known = await this.client.send(new GetCommand({ TableName: this.tableName, Key: { pk, sk: item.sk }, ProjectionExpression: 'sk' }));
    if (known.Item) {
      await this.client.send(new PutCommand({ TableName: this.tableName, Item: item }));
      return true;
    }
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk, sk: COUNT_SK },
          UpdateExpression: 'ADD devices :one',
          ConditionExpression: 'attribute_not_exists(devices) OR devices < :max',
          ExpressionAttributeValues: { ':one': 1, ':max': maxDevices },
        }),
      );
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
    try {
      await this.client.send(new PutCommand({ TableName: this.tableName, Item: item, ConditionExpression: 'attribute_not_exists(sk)' }));
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      await this.releaseSlot(pk);
      await this.client.send(new PutCommand({ TableName: this.tableName, Item: item }));
    }
    return true;
  }

  /** deleteDevice: DeleteItem returning the old item, then the counter decremented (only when something was deleted). */
  async deleteDevice(user: UserRef, deviceId: string): Promise<Device | undefined> {
    const pk = keys.channelStatePartition(user.tenantId, user.userId);
    const deleted = await this.client.send(new DeleteCommand({ TableName: this.tableName, Key: { pk, sk: keys.deviceSortKey(deviceId) }, ReturnValues: 'ALL_OLD' }));
    if (!deleted.Attributes) return undefined;
    await this.releaseSlot(pk);
    return toDevice(deleted.Attributes);
  }

  private async releaseSlot(pk: string): Promise<void> {
    await this.client
      .send(new UpdateCommand({ TableName: this.tableName, Key: { pk, sk: COUNT_SK }, UpdateExpression: 'ADD devices :minusOne', ConditionExpression: 'devices > :zero', ExpressionAttributeValues: { ':minusOne': -1, ':zero': 0 } }))
      .catch((error: unknown) => {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      });
  }

  async putPushConsent(user: UserRef, consent: PushConsent): Promise<void> {
    await this.put(user, CONSENT_SK, { grantedAt: consent.grantedAt, version: consent.version });
  }

  async deletePushConsent(user: UserRef): Promise<void> {
    await this.delete(user, CONSENT_SK);
  }

  async putEmailAddress(user: UserRef, address: string): Promise<void> {
    await this.put(user, EMAIL_SK, { address });
  }

  async deleteEmailAddress(user: UserRef): Promise<void> {
    await this.delete(user, EMAIL_SK);
  }

  async putSmsOptIn(user: UserRef, optIn: SmsOptIn): Promise<void> {
    await this.put(user, SMS_SK, { phoneNumber: optIn.phoneNumber, optedInAt: optIn.optedInAt, version: optIn.version });
  }

  async deleteSmsOptIn(user: UserRef): Promise<void> {
    await this.delete(user, SMS_SK);
  }

  async unsubscribeEmail(user: UserRef, type: string): Promise<void> {
    await this.put(user, `${EMAIL_OFF_PREFIX}${type}`, { at: new Date().toISOString() });
  }

  private async put(user: UserRef, sk: string, attributes: Record<string, unknown>): Promise<void> {
    await this.client.send(new PutCommand({ TableName: this.tableName, Item: { pk: keys.channelStatePartition(user.tenantId, user.userId), sk, ...attributes } }));
  }

  private async delete(user: UserRef, sk: string): Promise<void> {
    await this.client.send(new DeleteCommand({ TableName: this.tableName, Key: { pk: keys.channelStatePartition(user.tenantId, user.userId), sk } }));
  }

  private async queryAll(user: UserRef, prefix?: string): Promise<Record<string, unknown>[]> {
    const items: Record<string, unknown>[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: prefix ? 'pk = :pk AND begins_with(sk, :prefix)' : 'pk = :pk',
          ExpressionAttributeValues: { ':pk': keys.channelStatePartition(user.tenantId, user.userId), ...(prefix ? { ':prefix': prefix } : {}) },
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      items.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
    } while (start);
    return items;
  }
}
