/**
 * What a container remembers of the readers whose last page scanned the celebrity posts log: their
 * followed share of the log (it sizes the next scan's first request, and its presence sends that
 * request with the read's first round). A hint only: a wrong or missing entry costs a request.
 */
import type { UserRef } from '../model/user.js';

/** Readers remembered at most (the least recently told forgotten first). */
const MAX_REMEMBERED_READERS = 10_000;

function readerKey(user: UserRef): string {
  return `${user.tenantId}\u0000${user.userId}`;
}

export class CelebrityLogReaderMemory {
  private readonly densities = new Map<string, number>();

  /** The followed share the reader's last page scan saw; undefined when not a known log reader. */
  densityOf(user: UserRef): number | undefined {
    return this.densities.get(readerKey(user));
  }

  remember(user: UserRef, density: number): void {
    const key = readerKey(user);
    this.densities.delete(key);
    this.densities.set(key, density);
    if (this.densities.size > MAX_REMEMBERED_READERS) this.densities.delete(this.densities.keys().next().value!);
  }

  /** No longer a log reader (at or below the follow threshold). */
  forget(user: UserRef): void {
    this.densities.delete(readerKey(user));
  }
}
