/**
 * When an account enters the celebrity tier its posts stop going to follower inboxes, so every
 * existing follower needs a FOLLOWING_CELEBS item to merge its feed. That is a paged background
 * pass: each job writes one page and enqueues the job for the next page, so no invocation's work
 * grows with the follower count and a failed page is retried alone.
 */
import type { FollowGraph } from './ports/follow-graph.js';
import type { PromotionJobQueue } from './ports/queues.js';
import type { PromotionJob } from './promotion-job.js';

const PROMOTION_PAGE_SIZE = 1_000;

export interface CelebrityPromotionDeps {
  graph: FollowGraph;
  queue: PromotionJobQueue;
  pageSize?: number;
}

export class CelebrityPromotionService {
  constructor(private readonly deps: CelebrityPromotionDeps) {}

  /** Writes FOLLOWING_CELEBS for one page of followers (followedAt = when each followed), then queues the next page. */
  async runPage(job: PromotionJob): Promise<{ written: number; next?: string }> {
    const page = await this.deps.graph.listFollowersPage(job.tenantId, job.celebrityId, job.after, this.deps.pageSize ?? PROMOTION_PAGE_SIZE);
    await this.deps.graph.putFollowedCelebrities(
      page.followers.map((follower) => ({ tenantId: job.tenantId, userId: follower.followerId, celebrityId: job.celebrityId, followedAt: follower.followedAt })),
    );
    // Written before the next job is queued: a failed enqueue retries this page (idempotent puts).
    if (page.next !== undefined) await this.deps.queue.enqueue({ ...job, after: page.next });
    return { written: page.followers.length, ...(page.next !== undefined ? { next: page.next } : {}) };
  }
}
