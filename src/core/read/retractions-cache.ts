/** The read side of retractions (written by `fanout/retraction.ts`): the tenant's list, cached per container. */
import type { Clock } from '../ports/clock.js';
import type { Retraction, RetractionsReader } from '../ports/inbox.js';

/**
 * The tenant's retractions, cached per container for `ttlMs`: pages and counts of a warm
 * container cost no extra request; a retraction reaches a cold read at once and a warm one within
 * `ttlMs` (connected devices get `retracted` at once).
 */
export class CachedRetractions implements RetractionsReader {
  private readonly entries = new Map<string, { atMs: number; retractions: Promise<Retraction[]> }>();

  constructor(
    private readonly reader: RetractionsReader,
    private readonly ttlMs: number,
    private readonly clock: Clock,
  ) {}

  retractionsOf(tenantId: string, nowMs: number): Promise<Retraction[]> {
    const cached = this.entries.get(tenantId);
    if (cached && this.clock.nowMs() - cached.atMs < this.ttlMs) return cached.retractions;
    const retractions = this.reader.retractionsOf(tenantId, nowMs);
    // A failed read is not cached: the next read tries again.
    retractions.catch(() => this.entries.delete(tenantId));
    this.entries.set(tenantId, { atMs: this.clock.nowMs(), retractions });
    return retractions;
  }
}
