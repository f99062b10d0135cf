/**
 * When a read takes the celebrity posts log instead of the feeds (the user follows more than the
 * threshold), and what this container remembers of the readers who do: their followed share of the
 * log, which sizes a page's first log request and sends it with the read's first round.
 */
import { readerShard } from '../model/feed-shards.js';
import type { FollowedCelebrity } from '../model/followed-pack.js';
import type { UserRef } from '../model/user.js';
import type { CelebrityPost, CelebrityPostsPage } from '../ports/celebrity-posts.js';
import { DEFAULT_CELEBRITY_LOG_BUDGET, firstPageItems, CELEBRITY_LOG_MIN_FOLLOWED, prefetchFirstCelebrityLogPage, prefetchRange, type CelebrityLogBudget, type CelebrityLogScope } from './celebrity-posts-view.js';
import type { InboxReadDeps } from './inbox-view.js';
import { CelebrityLogReaderMemory } from './celebrity-log-reader-memory.js';

export class CelebrityLogReads {
  /** The celebrity posts log readers this container has seen, with their followed share of the log. */
  private readonly readers = new CelebrityLogReaderMemory();

  constructor(private readonly deps: Pick<InboxReadDeps, 'celebrityPosts' | 'celebrityLogFromFollowed' | 'celebrityLogBudget' | 'feedShards' | 'inboxTtlDays'>) {}

  /**
   * The first log request of a page of a reader whose last page scan (in this container) read the
   * celebrity posts log: sent with the read's first round, so a page is one round trip instead of two. A
   * reader who no longer follows enough wastes it once (then is forgotten).
   */
  prefetch(user: UserRef, range: { before?: string; since?: string }, wanted: number, type: string | undefined, nowMs: number): Promise<CelebrityPostsPage<CelebrityPost>> | undefined {
    const log = this.deps.celebrityPosts;
    const density = this.readers.densityOf(user);
    if (!log || density === undefined) return undefined;
    const firstItems = firstPageItems(this.budget(), wanted, type === undefined ? density : undefined);
    return prefetchFirstCelebrityLogPage(log, user, readerShard(user.userId, this.deps.feedShards), prefetchRange(range, nowMs, this.deps.inboxTtlDays), firstItems);
  }

  /** The celebrity posts log's view of this read when the user follows more than the threshold; undefined = read the feeds. */
  scope(user: UserRef, celebrities: readonly FollowedCelebrity[], muted: readonly string[], nowMs: number): CelebrityLogScope | undefined {
    const log = this.deps.celebrityPosts;
    if (!log || celebrities.length <= (this.deps.celebrityLogFromFollowed ?? CELEBRITY_LOG_MIN_FOLLOWED)) return undefined;
    const budget = this.budget();
    const density = this.readers.densityOf(user);
    const onDensity = (seen: number) => this.readers.remember(user, seen);
    return { log, user, shard: readerShard(user.userId, this.deps.feedShards), celebrities, muted, nowMs, inboxTtlDays: this.deps.inboxTtlDays, budget, onDensity, ...(density !== undefined ? { density } : {}) };
  }

  /** Not (or no longer) above the threshold: no prefetch on this reader's next reads. */
  forget(user: UserRef): void {
    this.readers.forget(user);
  }

  private budget(): CelebrityLogBudget {
    return { ...DEFAULT_CELEBRITY_LOG_BUDGET, ...this.deps.celebrityLogBudget };
  }
}
