/**
 * When an account enters the celebrity tier its posts stop going to follower inboxes, so every
 * existing follower needs a FOLLOWING_CELEBS item to merge its feed. That is a paged background
 * pass: each job writes one page and enqueues the job for the next page, so no invocation's work
 * grows with the follower count and a failed page is retried alone.
 *
 * The pass is queued before the tier flips (so a crash between the two still leaves a pass), but it
 * reads followers only once the flip is committed: its first page reads the profile (consistent) and,
 * if the count calls for the flip that is still pending, makes it itself (the same guarded change).
 * Every follow counted before the flip has its edge written before its count, so it is listed; every
 * follow counted after it wrote its own item. An account whose count no longer calls for the flip
 * needs no pass: any later flip queues its own pass first.
 */
import type { FollowGraph } from '../ports/follow-graph.js';
import type { PromotionJobQueue } from '../ports/queues.js';
import type { PromotionJob } from '../jobs/promotion-job.js';
import { tierChangeFor } from '../model/tier.js';

const PROMOTION_PAGE_SIZE = 1_000;

export interface CelebrityPromotionDeps {
  graph: FollowGraph;
  queue: PromotionJobQueue;
  celebrityThreshold: number;
  pageSize?: number;
}

export interface PromotionPageResult {
  written: number;
  next?: string;
  /** The first page found the account not (and no longer due to be) a celebrity: nothing to list. */
  skipped?: 'not-celebrity';
}

export class CelebrityPromotionService {
  constructor(private readonly deps: CelebrityPromotionDeps) {}

  /**
   * Writes FOLLOWING_CELEBS for the current followers of one page (followedAt = the start of each
   * one's follow run; unfollow markers skipped), then reads those pairs again and corrects the
   * entries a follow or unfollow processed meanwhile made stale (it may have written the pack before
   * this page did), then queues the next page.
   */
  async runPage(job: PromotionJob): Promise<PromotionPageResult> {
    if (job.after === undefined && !(await this.flipCommitted(job))) return { written: 0, skipped: 'not-celebrity' };
    const { graph } = this.deps;
    const page = await graph.listFollowersPage(job.tenantId, job.celebrityId, job.after, this.deps.pageSize ?? PROMOTION_PAGE_SIZE);
    const entries = page.followers.flatMap((follower) => (follower.followedAt !== undefined ? [this.entryOf(job, follower.followerId, follower.followedAt)] : []));
    await graph.putFollowedCelebrities(entries);
    if (entries.length > 0) {
      const now = await graph.getFollowers(job.tenantId, job.celebrityId, entries.map((entry) => entry.userId));
      for (const entry of entries) {
        const followedAt = now.get(entry.userId)?.followedAt;
        if (followedAt === entry.followedAt) continue;
        if (followedAt === undefined) await graph.removeFollowedCelebrity(job.tenantId, entry.userId, job.celebrityId);
        else await graph.replaceFollowedCelebrity(this.entryOf(job, entry.userId, followedAt));
      }
    }
    // Written before the next job is queued: a failed enqueue retries this page (idempotent puts).
    if (page.next !== undefined) await this.deps.queue.enqueue({ ...job, after: page.next });
    return { written: entries.length, ...(page.next !== undefined ? { next: page.next } : {}) };
  }

  private entryOf(job: PromotionJob, userId: string, followedAt: string) {
    return { tenantId: job.tenantId, userId, celebrityId: job.celebrityId, followedAt };
  }

  /** True once the account is a celebrity: read consistently, making a pending flip the count calls for. */
  private async flipCommitted(job: PromotionJob): Promise<boolean> {
    const profile = await this.deps.graph.getProfile(job.tenantId, job.celebrityId);
    if (profile.tier === 'celebrity') return true;
    const change = tierChangeFor(profile, this.deps.celebrityThreshold);
    if (!change) return false;
    if (await this.deps.graph.changeTier(job.tenantId, job.celebrityId, change)) return true;
    // Lost the race: another writer changed the tier or the count moved; the stored tier decides.
    return (await this.deps.graph.getProfile(job.tenantId, job.celebrityId)).tier === 'celebrity';
  }
}
