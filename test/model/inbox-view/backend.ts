/**
 * The ports the inbox-view model drives the core over: the DynamoDB adapters on dynalite, or the
 * in-memory ports (`memory-ports.ts`). Both are seeded the same way (celebrity profiles, follows).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoActionLookup } from '../../../src/adapters/dynamo/action-lookup.js';
import { DynamoArrivalLedger } from '../../../src/adapters/dynamo/arrival-ledger.js';
import { batchPutAll } from '../../../src/adapters/dynamo/batch.js';
import { DynamoCelebrityPostsLog } from '../../../src/adapters/dynamo/celebrity-posts-log.js';
import { createDocumentClient } from '../../../src/adapters/dynamo/document-client.js';
import { FollowGraphRepository } from '../../../src/adapters/dynamo/follow-graph-repository.js';
import { GraphRepository } from '../../../src/adapters/dynamo/graph-repository.js';
import { InboxRepository } from '../../../src/adapters/dynamo/inbox-repository.js';
import { ReadStateRepository } from '../../../src/adapters/dynamo/read-state-repository.js';
import { DynamoEscalationState } from '../../../src/adapters/dynamo/escalation-state.js';
import type { EscalationStateReader } from '../../../src/core/channels/escalation.js';
import { DynamoRecentPostsLog } from '../../../src/adapters/dynamo/recent-posts-log.js';
import { RequestMeter } from '../../../src/adapters/dynamo/request-meter.js';
import { RetractionRepository } from '../../../src/adapters/dynamo/retraction-repository.js';
import { keys } from '../../../src/core/model/keys.js';
import type { UserRef } from '../../../src/core/model/user.js';
import type { CelebrityPostsIndexWriter, CelebrityPostsReader } from '../../../src/core/ports/celebrity-posts.js';
import type { ArrivalLedger, RecentPostsLog } from '../../../src/core/ports/fan-out.js';
import type { FollowGraph } from '../../../src/core/ports/follow-graph.js';
import type { ActionLookupReader, FeedHeadsReader, FollowedCelebritiesReader, InboxReader, InboxWriter, LateArrivalRecorder, ReadStateStore, RetractionStore, RetractionsReader } from '../../../src/core/ports/inbox.js';
import { EMPTY_FEED_HEAD } from '../../../src/core/ports/inbox.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION, startEmbeddedDynamo, type EmbeddedDynamo } from '../../../src/local/embedded-dynamo.js';

export interface Ports {
  inbox: InboxReader & InboxWriter;
  readState: ReadStateStore & LateArrivalRecorder;
  actionLookup: ActionLookupReader;
  graph: FollowGraph;
  graphReads: FollowedCelebritiesReader & FeedHeadsReader;
  celebrityPosts: CelebrityPostsReader & CelebrityPostsIndexWriter;
  arrivals: ArrivalLedger;
  recentPosts: RecentPostsLog;
  retractions: RetractionStore & RetractionsReader;
  /** What an escalation reads at fire time (core/channels/escalation.ts). */
  escalation: EscalationStateReader;
}

export interface Backend {
  readonly name: string;
  readonly ports: Ports;
  /** Celebrity profiles (tier celebrity, empty feed head) and the user's follows of them since `followedAtMs`. */
  seed(user: UserRef, celebrities: readonly string[], followedAtMs: number): Promise<void>;
  /** DynamoDB requests sent so far (0 for the in-memory ports). */
  requests(): number;
}

/** dynalite on a random port, shared by every run of a suite (each run takes a fresh tenant). */
export class DynaliteServer {
  private constructor(
    readonly dynamo: EmbeddedDynamo,
    readonly client: DynamoDBDocumentClient,
    readonly meter: RequestMeter,
  ) {}

  static async start(): Promise<DynaliteServer> {
    const dynamo = await startEmbeddedDynamo();
    const client = createDocumentClient({ endpoint: dynamo.endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
    const meter = new RequestMeter();
    meter.attach(client);
    return new DynaliteServer(dynamo, client, meter);
  }

  backend(): Backend {
    const { client, dynamo, meter } = this;
    const tables = dynamo.tableNames;
    const noWait = { sleep: async () => undefined };
    const graph = new FollowGraphRepository(client, tables.graph, noWait);
    return {
      name: 'dynalite',
      ports: {
        inbox: new InboxRepository(client, tables.inbox, noWait),
        // No exception with the marks item: the ranged query of the rest above the read mark runs whenever there is one.
        readState: new ReadStateRepository(client, tables.readMarks, 0),
        actionLookup: new DynamoActionLookup(client, { inbox: tables.inbox, readMarks: tables.readMarks, graph: tables.graph }),
        graph,
        graphReads: new GraphRepository(client, tables.graph),
        celebrityPosts: new DynamoCelebrityPostsLog(client, tables.inbox),
        arrivals: new DynamoArrivalLedger(client, tables.idempotency),
        recentPosts: new DynamoRecentPostsLog(client, tables.inbox),
        retractions: new RetractionRepository(client, tables.inbox),
        escalation: new DynamoEscalationState(client, { inbox: tables.inbox, readMarks: tables.readMarks }),
      },
      async seed(user, celebrities, followedAtMs) {
        await batchPutAll(
          client,
          tables.graph,
          celebrities.map((celebrityId) => ({ ...keys.profile(user.tenantId, celebrityId), followerCount: 1_000_000, tier: 'celebrity', everCelebrity: true, newestFeedId: EMPTY_FEED_HEAD })),
          noWait,
        );
        await graph.putFollowedCelebrities(celebrities.map((celebrityId) => ({ ...user, celebrityId, followedAt: new Date(followedAtMs).toISOString() })));
      },
      requests: () => meter.snapshot().requests,
    };
  }

  async close(): Promise<void> {
    this.client.destroy();
    await this.dynamo.close();
  }
}
