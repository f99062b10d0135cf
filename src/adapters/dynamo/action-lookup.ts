/**
 * The per-item actions' lookup (`ActionLookupReader`): in ONE BatchGetItem over three tables, the ids
 * in the user's own partition (Inbox), in the reader's shard of the tenant's celebrity posts log
 * (Inbox: every celebrity post is there, so no followed feed is looked in), the marks item and the
 * ids' exceptions (ReadMarks), and the followed-celebrities pack (Graph, 8 chunk items). 100 ids are
 * about 300 keys: 4 requests in parallel, whatever the number of followed celebrities.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { decodeFollowedPack, FOLLOWED_PACK_CHUNKS } from '../../core/model/followed-pack.js';
import { keys } from '../../core/model/keys.js';
import type { UserRef } from '../../core/model/user.js';
import type { ActionLookup, ActionLookupReader } from '../../core/ports/inbox.js';
import { batchGetTables, type TableItemKey } from './batch.js';
import { toStored } from './inbox-repository.js';
import { readStateOfItems } from './read-state-repository.js';

export interface ActionLookupTables {
  inbox: string;
  readMarks: string;
  graph: string;
}

export class DynamoActionLookup implements ActionLookupReader {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: ActionLookupTables,
  ) {}

  /** lookupForAction: one BatchGetItem per 100 keys (own item, log item, exception per id; marks; 8 pack chunks), in parallel. */
  async lookupForAction(user: UserRef, ids: readonly string[], logShard: number): Promise<ActionLookup> {
    const { tenantId, userId } = user;
    const unique = [...new Set(ids)];
    const logPk = keys.celebrityPostsPartition(tenantId, logShard);
    const requests: TableItemKey[] = [
      { table: this.tables.readMarks, key: keys.readMark(tenantId, userId) },
      ...Array.from({ length: FOLLOWED_PACK_CHUNKS }, (_, chunk) => ({ table: this.tables.graph, key: keys.followedCelebsPack(tenantId, userId, chunk) })),
      ...unique.flatMap((id) => [
        { table: this.tables.inbox, key: keys.inboxItem(tenantId, userId, id) },
        { table: this.tables.inbox, key: { pk: logPk, sk: id } },
        { table: this.tables.readMarks, key: keys.itemState(tenantId, userId, id) },
      ]),
    ];
    const found = await batchGetTables(this.client, requests);
    const own = new Map<string, ReturnType<typeof toStored>>();
    const celebrityPosts = new Map<string, { authorId: string; item: ReturnType<typeof toStored> }>();
    for (const item of found.get(this.tables.inbox) ?? []) {
      if (item.pk === logPk) celebrityPosts.set(item.sk as string, { authorId: String(item.authorId), item: toStored(item) });
      else own.set(item.sk as string, toStored(item));
    }
    return { own, celebrityPosts, state: readStateOfItems(found.get(this.tables.readMarks) ?? []), followed: decodeFollowedPack(found.get(this.tables.graph) ?? []) };
  }
}
