/** Integration-test plumbing: dynalite in memory on a random port, a metered document client, seeders. */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoActionLookup } from '../../src/adapters/dynamo/action-lookup.js';
import { createDocumentClient } from '../../src/adapters/dynamo/document-client.js';
import { FollowGraphRepository } from '../../src/adapters/dynamo/follow-graph-repository.js';
import { GraphRepository } from '../../src/adapters/dynamo/graph-repository.js';
import { InboxRepository } from '../../src/adapters/dynamo/inbox-repository.js';
import { ReadStateRepository } from '../../src/adapters/dynamo/read-state-repository.js';
import { RequestMeter } from '../../src/adapters/dynamo/request-meter.js';
import { decodeCursor } from '../../src/core/read/cursor.js';
import { InboxReadService, type InboxPageRequest } from '../../src/core/read/inbox-read-service.js';
import { ReadMarks } from '../../src/core/actions/read-marks.js';
import type { Clock } from '../../src/core/ports/clock.js';
import type { UserRef } from '../../src/core/model/user.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION, startEmbeddedDynamo, type EmbeddedDynamo } from '../../src/local/embedded-dynamo.js';

export interface TestDynamo {
  dynamo: EmbeddedDynamo;
  client: DynamoDBDocumentClient;
  meter: RequestMeter;
  close(): Promise<void>;
}

/** dynalite in memory on a random port; every request of `client` is counted by `meter`. */
export async function startTestDynamo(): Promise<TestDynamo> {
  const dynamo = await startEmbeddedDynamo();
  const client = createDocumentClient({ endpoint: dynamo.endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  const meter = new RequestMeter();
  meter.attach(client);
  return {
    dynamo,
    client,
    meter,
    async close() {
      client.destroy();
      await dynamo.close();
    },
  };
}

/** A clock tests move by hand. */
export class ManualClock implements Clock {
  constructor(private now: number) {}
  nowMs(): number {
    return this.now;
  }
  set(ms: number): void {
    this.now = ms;
  }
  advance(ms: number): void {
    this.now += ms;
  }
}

export const TEST_CURSOR_SECRET = 'test-cursor-secret';
export const TEST_FEED_SHARDS = 4;

export interface Repositories {
  inbox: InboxRepository;
  readState: ReadStateRepository;
  graph: GraphRepository;
  actionLookup: DynamoActionLookup;
}

export function repositoriesOn(client: DynamoDBDocumentClient, tableNames: EmbeddedDynamo['tableNames']): Repositories {
  return {
    // No real waiting between UnprocessedItems rounds in tests.
    inbox: new InboxRepository(client, tableNames.inbox, { sleep: async () => undefined }),
    readState: new ReadStateRepository(client, tableNames.readMarks),
    graph: new GraphRepository(client, tableNames.graph),
    actionLookup: new DynamoActionLookup(client, { inbox: tableNames.inbox, readMarks: tableNames.readMarks, graph: tableNames.graph }),
  };
}

/** The REST functions' core objects over the same repositories: the read service and the marks. */
export type InboxUnderTest = Pick<InboxReadService, 'listPage' | 'counts' | 'findInView'> & Pick<ReadMarks, 'markAllRead' | 'markAllSeen' | 'markOneRead'>;

export function serviceOn(repositories: Repositories, clock: Clock, options: { feedShards?: number; cursorSecret?: string; feedHeads?: boolean } = {}): InboxUnderTest {
  const reads = new InboxReadService({
    inbox: repositories.inbox,
    celebrities: repositories.graph,
    ...(options.feedHeads ? { feedHeads: repositories.graph } : {}),
    readState: repositories.readState,
    actionLookup: repositories.actionLookup,
    clock,
    cursorSecret: options.cursorSecret ?? TEST_CURSOR_SECRET,
    feedShards: options.feedShards ?? TEST_FEED_SHARDS,
    inboxTtlDays: 90,
  });
  const marks = new ReadMarks({ readState: repositories.readState, view: reads, clock, inboxTtlDays: 90 });
  return {
    listPage: (user, request) => reads.listPage(user, request),
    counts: (user, request) => reads.counts(user, request),
    findInView: (user, ids) => reads.findInView(user, ids),
    markAllRead: (user, upTo) => marks.markAllRead(user, upTo),
    markAllSeen: (user, upTo) => marks.markAllSeen(user, upTo),
    markOneRead: (user, id) => marks.markOneRead(user, id),
  };
}

/** Graph items: `user` follows `celebrityId` since `followedAtMs` (the edge and its pack entry, what follow.created writes for a celebrity). */
export async function seedFollowingCeleb(client: DynamoDBDocumentClient, graphTable: string, user: UserRef, celebrityId: string, followedAtMs: number): Promise<void> {
  await new FollowGraphRepository(client, graphTable).putFollowedCelebrities([{ ...user, celebrityId, followedAt: new Date(followedAtMs).toISOString() }]);
}

/** Every page of a walk with cursors, and the DynamoDB requests `meter` counted for each page. */
export async function walkPages(meter: RequestMeter, service: Pick<InboxReadService, 'listPage'>, user: UserRef, request: Omit<InboxPageRequest, 'cursor'>): Promise<{ pages: string[][]; requests: number[] }> {
  const pages: string[][] = [];
  const requests: number[] = [];
  let cursor: string | null = null;
  do {
    meter.reset();
    const page = await service.listPage(user, { ...request, ...(cursor ? { cursor: decodeCursor(cursor, TEST_CURSOR_SECRET) } : {}) });
    requests.push(meter.snapshot().requests);
    pages.push(page.items.map((item) => item.id));
    cursor = page.nextCursor;
  } while (cursor !== null);
  return { pages, requests };
}
