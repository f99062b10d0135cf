/** Graph table: users' delivery preferences (`T#t#U#u#PROFILE` / `PREFERENCES`). */
import { PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../core/model/keys.js';
import { DEFAULT_PREFERENCES, storedPreferencesSchema, type Preferences, type PreferencesLookup } from '../../core/preferences/preferences.js';
import type { PreferencesStore } from '../../core/preferences/store.js';
import { batchGetAll, type BatchOptions } from './batch.js';

/** BatchGetItem calls in flight for one lookup. */
const LOOKUP_PARALLELISM = 4;

export class PreferencesRepository implements PreferencesStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly batchOptions: BatchOptions = {},
  ) {}

  /**
   * getPreferences: BatchGetItem of the users' PREFERENCES items, 100 keys per call, unprocessed
   * keys retried. No item = defaults; an item that does not parse (or names a zone the runtime
   * does not know) = `unreadable`. Read errors propagate (the caching reader fails closed on them).
   */
  async getPreferences(tenantId: string, userIds: readonly string[]): Promise<Map<string, PreferencesLookup>> {
    const unique = [...new Set(userIds)];
    const items = await batchGetAll(
      this.client,
      this.tableName,
      unique.map((userId) => keys.preferences(tenantId, userId)),
      { parallelism: LOOKUP_PARALLELISM, ...this.batchOptions },
    );
    const found = new Map(items.map((item) => [item.pk as string, item]));
    const result = new Map<string, PreferencesLookup>();
    for (const userId of unique) result.set(userId, toLookup(found.get(keys.preferences(tenantId, userId).pk)));
    return result;
  }

  /** putPreferences: one unconditional put (PUT replaces the whole document). */
  async putPreferences(tenantId: string, userId: string, preferences: Preferences): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...keys.preferences(tenantId, userId),
          timeZone: preferences.timeZone,
          quietHours: preferences.quietHours,
          mutedTypes: preferences.mutedTypes,
          liveDelivery: preferences.liveDelivery,
          updatedAt: preferences.updatedAt,
          ...(preferences.channels && Object.keys(preferences.channels).length > 0 ? { channels: preferences.channels } : {}),
        },
      }),
    );
  }
}

function toLookup(item: Record<string, unknown> | undefined): PreferencesLookup {
  if (item === undefined) return { status: 'default', preferences: { ...DEFAULT_PREFERENCES, mutedTypes: [], liveDelivery: {} } };
  const parsed = storedPreferencesSchema.safeParse(item);
  if (!parsed.success) return { status: 'unreadable', reason: parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ') };
  return { status: 'saved', preferences: parsed.data };
}
