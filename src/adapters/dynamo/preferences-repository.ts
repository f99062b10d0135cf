/** Graph table: users' delivery preferences (`T#t#U#u#PROFILE` / `PREFERENCES`). */
import { BatchGetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../core/keys.js';
import { DEFAULT_PREFERENCES, storedPreferencesSchema, type Preferences, type PreferencesLookup } from '../../core/preferences.js';
import type { PreferencesStore } from '../../core/ports/preferences.js';
import { chunk, mapWithParallelism } from './batch-write.js';

/** BatchGetItem takes at most 100 keys. */
const BATCH_GET_LIMIT = 100;
const MAX_UNPROCESSED_ROUNDS = 8;

export class UnprocessedKeysError extends Error {
  override readonly name = 'UnprocessedKeysError';
}

export interface PreferencesRepositoryOptions {
  sleep?: (ms: number) => Promise<void>;
}

export class PreferencesRepository implements PreferencesStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly options: PreferencesRepositoryOptions = {},
  ) {}

  /**
   * getPreferences: BatchGetItem of the users' PREFERENCES items, 100 keys per call, unprocessed
   * keys retried. No item = defaults; an item that does not parse (or names a zone the runtime
   * does not know) = `unreadable`. Read errors propagate (the caching reader fails closed on them).
   */
  async getPreferences(tenantId: string, userIds: readonly string[]): Promise<Map<string, PreferencesLookup>> {
    const unique = [...new Set(userIds)];
    const found = new Map<string, Record<string, unknown>>();
    await mapWithParallelism(chunk(unique, BATCH_GET_LIMIT), 4, async (users) => {
      let requested: Record<string, unknown>[] = users.map((userId) => ({ ...keys.preferences(tenantId, userId) }));
      for (let round = 0; requested.length > 0; round += 1) {
        if (round === MAX_UNPROCESSED_ROUNDS) throw new UnprocessedKeysError(`${requested.length} preferences keys unprocessed`);
        if (round > 0) await (this.options.sleep ?? defaultSleep)(Math.min(1_000, 25 * 2 ** round));
        const output = await this.client.send(new BatchGetCommand({ RequestItems: { [this.tableName]: { Keys: requested } } }));
        for (const item of output.Responses?.[this.tableName] ?? []) found.set(item.pk as string, item);
        requested = (output.UnprocessedKeys?.[this.tableName]?.Keys ?? []) as Record<string, unknown>[];
      }
    });
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

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
