/**
 * The user export (src/contract/user-export.ts), streamed: the document is written to `sink` piece by
 * piece while the partitions are paged (1,000 items per Query page), so a large inbox never sits in
 * memory whole. Reads the user's own partitions (Query) and, for the accounts they follow, one
 * tenant-filtered Scan of the Graph table (nothing indexes the edges by follower).
 */
import { ScanCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { USER_EXPORT_FORMAT } from '../../contract/user-export.js';
import type { ErasureSubject } from '../../core/privacy/erasure.js';
import { keys, READ_MARK_SK, tenantKeyPrefix, userPartition } from '../../core/model/keys.js';
import { isRead, isSeen, type ItemException, type ReadState } from '../../core/model/read-state.js';
import { exceptionOf, marksOf } from './read-state-repository.js';
import { exceptionOfSingleRead } from './read-state-migration.js';
import { currentRun, FOLLOW_HISTORY_ATTRIBUTE, followHistoryOf } from '../../core/model/follow-history.js';
import { followerOf } from './follow-pairs.js';
import type { TableName } from '../../table-specs.js';
import type { Item } from './batch.js';
import { queryPages } from './query-pages.js';

export interface UserExporterOptions {
  client: DynamoDBDocumentClient;
  tables: Record<TableName, string>;
  feedShards: number;
  nowMs?: () => number;
}

export type ExportSink = (text: string) => Promise<void> | void;

const PAGE_LIMIT = 1_000;

/** A follower item as exported: the current run's start (null for an unfollowed pair's marker) and, when it has one, its history. */
function pairOf(userId: string, item: Item) {
  const { history } = followerOf({ ...item, sk: userId });
  const run = currentRun(history);
  const records = followHistoryOf(item[FOLLOW_HISTORY_ATTRIBUTE] as Iterable<unknown> | undefined);
  return {
    userId,
    followedAt: run.following ? new Date(run.sinceMs).toISOString() : null,
    ...(records.length > 0 ? { history: history.map((record) => ({ at: new Date(record.atMs).toISOString(), kind: record.kind })) } : {}),
  };
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

/** The id in a key segment (`%XX` escapes undone); a hashed segment (`~`) stays as it is. */
function idOfSegment(segment: string): string {
  if (segment.startsWith('~')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export class UserExporter {
  constructor(private readonly options: UserExporterOptions) {}

  private get client(): DynamoDBDocumentClient {
    return this.options.client;
  }

  async export(subject: ErasureSubject, sink: ExportSink): Promise<void> {
    const { tenantId, userId } = subject;
    const own = userPartition(tenantId, userId);
    const profileItems = await this.queryAll('graph', keys.profile(tenantId, userId).pk);
    const profile = profileItems.find((item) => item.sk === 'PROFILE');
    const preferences = profileItems.find((item) => item.sk === 'PREFERENCES');
    const readState = await this.readState(own);
    const head = {
      format: USER_EXPORT_FORMAT,
      tenantId,
      userId,
      exportedAt: new Date(this.options.nowMs?.() ?? Date.now()).toISOString(),
      profile: profile ? { followerCount: Number(profile.followerCount ?? 0), tier: profile.tier === 'celebrity' ? 'celebrity' : 'ordinary' } : null,
      preferences: preferences ? withoutKeys(preferences) : null,
      readState: {
        readMark: readState.readMark,
        readAt: readState.readAt,
        seenMark: readState.seenMark,
        seenAt: readState.seenAt,
        singleReads: [...readState.exceptions].filter(([, exception]) => exception.read).map(([id]) => id),
      },
    };
    await sink(JSON.stringify(head).slice(0, -1));
    await this.writeArray(sink, 'inbox', this.pages('inbox', own, false), (item) => ({ ...notificationOf(item), read: isRead(String(item.sk), readState), seen: isSeen(String(item.sk), readState) }));
    const authored = [keys.recentPostsPartition(tenantId, userId), ...(this.options.feedShards > 0 ? [keys.feedShardPartition(tenantId, userId, 0)] : [])];
    await this.writeArray(sink, 'authoredPosts', this.concat(authored.map((pk) => this.pages('inbox', pk, false))), (item) =>
      item.notification && typeof item.notification === 'object' ? notificationOf({ ...(item.notification as Item), sk: item.sk, expiresAt: item.expiresAt }) : notificationOf(item),
    );
    await this.writeArray(sink, 'followers', this.pages('graph', keys.followersPartition(tenantId, userId), true), (item) => pairOf(String(item.sk), item));
    await this.writeArray(sink, 'following', this.followingPages(subject), (item) => pairOf(idOfSegment(String(item.pk).split('#')[3] ?? ''), item));
    await this.writeArray(sink, 'followedCelebrities', this.pages('graph', keys.followingCelebsPartition(tenantId, userId), true), (item) => ({ userId: String(item.sk), followedAt: stringOrNull(item.followedAt) }));
    await this.writeArray(sink, 'connections', this.connectionPages(own), (item) => ({ connectionId: String(item.sk).slice('C#'.length), connectedAt: stringOrNull(item.connectedAt) }));
    await sink(',"devices":[]}');
  }

  private async writeArray(sink: ExportSink, name: string, pages: AsyncIterable<Item[]>, map: (item: Item) => unknown): Promise<void> {
    await sink(`,${JSON.stringify(name)}:[`);
    let first = true;
    for await (const page of pages) {
      if (page.length === 0) continue;
      await sink(`${first ? '' : ','}${page.map((item) => JSON.stringify(map(item))).join(',')}`);
      first = false;
    }
    await sink(']');
  }

  private async *pages(table: Exclude<TableName, 'idempotency'>, pk: string, ascending: boolean): AsyncGenerator<Item[]> {
    yield* queryPages(this.client, {
      TableName: this.options.tables[table],
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': pk },
      ScanIndexForward: ascending,
      Limit: PAGE_LIMIT,
    });
  }

  private async *concat(sources: AsyncIterable<Item[]>[]): AsyncGenerator<Item[]> {
    for (const source of sources) yield* source;
  }

  private async queryAll(table: Exclude<TableName, 'idempotency'>, pk: string): Promise<Item[]> {
    const items: Item[] = [];
    for await (const page of this.pages(table, pk, true)) items.push(...page);
    return items;
  }

  private async readState(own: string): Promise<ReadState> {
    const items = await this.queryAll('readMarks', own);
    const exceptions = new Map<string, ItemException>();
    for (const item of items) {
      const id = keys.notificationIdFromItemState(String(item.sk));
      const exception = id !== undefined ? exceptionOf(item) : undefined;
      if (id !== undefined && exception) exceptions.set(id, exception);
    }
    // A 0.1.0 single read not yet converted by `npm run migrate`.
    for (const item of items) {
      const id = keys.notificationIdFromReadException(String(item.sk));
      if (id !== undefined && !keys.notificationIdFromItemState(String(item.sk)) && !exceptions.has(id)) exceptions.set(id, exceptionOfSingleRead(item));
    }
    return { ...marksOf(items.find((item) => item.sk === READ_MARK_SK)), exceptions };
  }

  private async *connectionPages(own: string): AsyncGenerator<Item[]> {
    for await (const page of this.pages('connections', own, true)) yield page.filter((item) => String(item.sk).startsWith('C#'));
  }

  /** The edges the user follows: FOLLOWERS items of other accounts with sk = the user (one tenant-filtered Scan). */
  private async *followingPages(subject: ErasureSubject): AsyncGenerator<Item[]> {
    let start: Item | undefined;
    do {
      const output = await this.client.send(
        new ScanCommand({
          TableName: this.options.tables.graph,
          FilterExpression: 'begins_with(pk, :tenant) AND sk = :user',
          ExpressionAttributeValues: { ':tenant': `${tenantKeyPrefix(subject.tenantId)}#`, ':user': subject.userId },
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      yield (output.Items ?? []).filter((item) => String(item.pk).endsWith('#FOLLOWERS') && item.pk !== keys.followersPartition(subject.tenantId, subject.userId));
      start = output.LastEvaluatedKey;
    } while (start);
  }
}

function withoutKeys(item: Item): Item {
  const { pk, sk, ...rest } = item;
  void pk;
  void sk;
  return rest;
}

function notificationOf(item: Item): { id: string; type: string; createdAt: string; actor: unknown; title: string; body: string; data: unknown; expiresAt: number } {
  return {
    id: String(item.sk),
    type: String(item.type),
    createdAt: String(item.createdAt),
    actor: item.actor,
    title: String(item.title ?? ''),
    body: String(item.body ?? ''),
    data: item.data ?? {},
    expiresAt: Number(item.expiresAt ?? 0),
  };
}
