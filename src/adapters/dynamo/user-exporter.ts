/**
 * The user export (src/contract/user-export.ts), streamed: the document is written to `sink` piece by
 * piece while the partitions are paged (1,000 items per Query page), so a large inbox never sits in
 * memory whole. Every read is a Query of one of their partitions or a BatchGetItem of keys found
 * there (no Scan): their inbox and each followed celebrity's feed shard they read (from when they
 * followed, as the inbox API merges them), their read state with its per-item exceptions, their
 * FOLLOWING list and the pairs it names, their post alert subscriptions (their ALERTING list and the
 * subscriptions it names) and subscribers, their channel records (devices without token or endpoint,
 * consent, address, unsubscribes).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { USER_EXPORT_FORMAT } from '../../contract/user-export.js';
import type { ErasureSubject } from '../../core/privacy/erasure.js';
import { readerShard } from '../../core/model/feed-shards.js';
import { idLowerBoundAt } from '../../core/model/ids.js';
import { keys, READ_MARK_SK, userPartition } from '../../core/model/keys.js';
import { currentState, type ItemException, type ReadState } from '../../core/model/read-state.js';
import { exceptionOf, marksOf } from './read-state-repository.js';
import { exceptionOfSingleRead } from './read-state-migration.js';
import { currentRun, FOLLOW_HISTORY_ATTRIBUTE, followHistoryOf } from '../../core/model/follow-history.js';
import { followerOf } from './follow-pairs.js';
import type { TableName } from '../../table-specs.js';
import { batchGetAll, type Item } from './batch.js';
import { ChannelRepository } from './channel-repository.js';
import { GraphRepository } from './graph-repository.js';
import { queryPages } from './query-pages.js';

export interface UserExporterOptions {
  client: DynamoDBDocumentClient;
  tables: Record<TableName, string>;
  feedShards: number;
  nowMs?: () => number;
}

export type ExportSink = (text: string) => Promise<void> | void;

const PAGE_LIMIT = 1_000;
/** Where an inbox item came from, carried on the item between the pages and its mapping. */
const SOURCE = '\u0000source';
/** The account a FOLLOWING pair's follower item belongs to (its key holds it escaped). */
const FOLLOWEE = '\u0000followee';
/** The account an alert subscription belongs to (its key holds it escaped). */
const ACCOUNT = '\u0000account';

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

export class UserExporter {
  constructor(private readonly options: UserExporterOptions) {}

  private get client(): DynamoDBDocumentClient {
    return this.options.client;
  }

  async export(subject: ErasureSubject, sink: ExportSink): Promise<void> {
    const { tenantId, userId } = subject;
    const { client, tables, feedShards } = this.options;
    const own = userPartition(tenantId, userId);
    const nowMs = this.options.nowMs?.() ?? Date.now();
    const profileItems = await this.queryAll('graph', keys.profile(tenantId, userId).pk);
    const profile = profileItems.find((item) => item.sk === 'PROFILE');
    const preferences = profileItems.find((item) => item.sk === 'PREFERENCES');
    const readState = await this.readState(own);
    const channels = await new ChannelRepository(client, tables.graph).channelState(subject);
    const celebrities = feedShards > 0 ? await new GraphRepository(client, tables.graph).listFollowedCelebrities(subject) : [];
    const mutedTypes = new Set(Array.isArray(preferences?.mutedTypes) ? preferences.mutedTypes.map(String) : []);
    const head = {
      format: USER_EXPORT_FORMAT,
      tenantId,
      userId,
      exportedAt: new Date(nowMs).toISOString(),
      profile: profile ? { followerCount: Number(profile.followerCount ?? 0), tier: profile.tier === 'celebrity' ? 'celebrity' : 'ordinary' } : null,
      preferences: preferences ? withoutKeys(preferences) : null,
      readState: {
        readMark: readState.readMark,
        readAt: readState.readAt,
        seenMark: readState.seenMark,
        seenAt: readState.seenAt,
        singleReads: [...readState.exceptions].filter(([, exception]) => exception.read).map(([id]) => id),
      },
      // Never the token or the endpoint: those are the provider's handles, not data about them.
      devices: channels.devices.map((device) => ({ deviceId: device.id, platform: device.platform, locale: device.locale ?? null, createdAt: device.createdAt, updatedAt: device.updatedAt })),
      pushConsent: channels.pushConsent ?? null,
      emailAddress: channels.emailAddress ?? null,
      emailUnsubscribed: [...channels.emailUnsubscribed].sort(),
    };
    await sink(JSON.stringify(head).slice(0, -1));
    const live = (item: Item) => Number(item.expiresAt ?? Number.POSITIVE_INFINITY) > Math.floor(nowMs / 1000);
    const shard = readerShard(userId, Math.max(1, feedShards));
    const feeds = celebrities.map((celebrity) => this.pages('inbox', keys.feedShardPartition(tenantId, celebrity.celebrityId, shard), false, idLowerBoundAt(celebrity.followedAtMs)));
    await this.writeArray(
      sink,
      'inbox',
      this.concat([this.filtered(this.pages('inbox', own, false), live, 'inbox'), ...feeds.map((pages) => this.filtered(pages, (item) => live(item) && !mutedTypes.has(String(item.type)), 'celebrityFeed'))]),
      (item) => inboxItemOf(item, readState),
    );
    const authored = [keys.recentPostsPartition(tenantId, userId), ...(feedShards > 0 ? [keys.feedShardPartition(tenantId, userId, 0)] : [])];
    await this.writeArray(sink, 'authoredPosts', this.concat(authored.map((pk) => this.pages('inbox', pk, false))), (item) =>
      item.notification && typeof item.notification === 'object' ? notificationOf({ ...(item.notification as Item), sk: item.sk, expiresAt: item.expiresAt }) : notificationOf(item),
    );
    await this.writeArray(sink, 'followers', this.pages('graph', keys.followersPartition(tenantId, userId), true), (item) => pairOf(String(item.sk), item));
    await this.writeArray(sink, 'following', this.followingPages(subject), (item) => pairOf(String(item[FOLLOWEE]), item));
    await this.writeArray(sink, 'followedCelebrities', this.pages('graph', keys.followingCelebsPartition(tenantId, userId), true), (item) => ({ userId: String(item.sk), followedAt: stringOrNull(item.followedAt) }));
    await this.writeArray(sink, 'alertSubscriptions', this.alertSubscriptionPages(subject), (item) => ({ accountId: String(item[ACCOUNT]), since: stringOrNull(item.subscribedAt) }));
    await this.writeArray(sink, 'alertSubscribers', this.pages('graph', keys.alertSubscribersPartition(tenantId, userId), true), (item) => ({ userId: String(item.sk), since: stringOrNull(item.subscribedAt) }));
    await this.writeArray(sink, 'connections', this.connectionPages(own), (item) => ({ connectionId: String(item.sk).slice('C#'.length), connectedAt: stringOrNull(item.connectedAt) }));
    await sink('}');
  }

  /** The pages of `pages` keeping only what `keep` says, each item tagged with its `source`. */
  private async *filtered(pages: AsyncIterable<Item[]>, keep: (item: Item) => boolean, source?: string): AsyncGenerator<Item[]> {
    for await (const page of pages) yield page.filter(keep).map((item) => (source ? { ...item, [SOURCE]: source } : item));
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

  /** Newest first unless `ascending`; with `after`, only the ids above it. */
  private async *pages(table: Exclude<TableName, 'idempotency'>, pk: string, ascending: boolean, after?: string): AsyncGenerator<Item[]> {
    yield* queryPages(this.client, {
      TableName: this.options.tables[table],
      KeyConditionExpression: after === undefined ? 'pk = :pk' : 'pk = :pk AND sk > :after',
      ExpressionAttributeValues: { ':pk': pk, ...(after === undefined ? {} : { ':after': after }) },
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

  /** Their alert subscriptions: their ALERTING list (Query), then each subscription under its account (BatchGetItem); a reference without one (a crash mid-write) is left out. */
  private async *alertSubscriptionPages(subject: ErasureSubject): AsyncGenerator<Item[]> {
    for await (const page of this.pages('graph', keys.alertingPartition(subject.tenantId, subject.userId), true)) {
      const accounts = page.map((item) => String(item.sk));
      const subscriptions = await batchGetAll(this.client, this.options.tables.graph, accounts.map((accountId) => keys.alertSubscriber(subject.tenantId, accountId, subject.userId)));
      const byAccount = new Map(subscriptions.map((item) => [String(item.pk), item]));
      yield accounts.flatMap((accountId) => {
        const item = byAccount.get(keys.alertSubscribersPartition(subject.tenantId, accountId));
        return item ? [{ ...item, [ACCOUNT]: accountId }] : [];
      });
    }
  }

  /** The pairs the user follows or followed: their FOLLOWING list (Query), then each pair's follower item (BatchGetItem). */
  private async *followingPages(subject: ErasureSubject): AsyncGenerator<Item[]> {
    for await (const page of this.pages('graph', keys.followingPartition(subject.tenantId, subject.userId), true)) {
      const followees = page.map((item) => String(item.sk));
      const pairs = await batchGetAll(this.client, this.options.tables.graph, followees.map((followeeId) => keys.follower(subject.tenantId, followeeId, subject.userId)));
      const byFollowee = new Map(pairs.map((item) => [String(item.pk), item]));
      yield followees.flatMap((followeeId) => {
        const item = byFollowee.get(keys.followersPartition(subject.tenantId, followeeId));
        return item ? [{ ...item, [FOLLOWEE]: followeeId }] : [];
      });
    }
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

/** An item of their inbox view with its state for them (a deleted or snoozed one is still stored, so it is exported). */
function inboxItemOf(item: Item, state: ReadState) {
  const id = String(item.sk);
  const current = currentState(id, state);
  return {
    ...notificationOf(item),
    read: current.read,
    seen: current.seen,
    archived: current.archived,
    deleted: current.deleted,
    snoozedUntil: current.snoozedUntil !== undefined ? new Date(current.snoozedUntil).toISOString() : null,
    source: item[SOURCE] === 'celebrityFeed' ? 'celebrityFeed' : 'inbox',
  };
}
