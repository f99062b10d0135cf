/**
 * Port of the erasure tombstones: which of these users were erased (their tombstone still lives).
 * Every consumer that sends to a user checks it (fan-out, live pushes, held releases, push and email).
 */
import type { UserRef } from '../model/user.js';

export interface ErasedUsers {
  /** The subset of `userIds` (one tenant) with a live erasure tombstone. */
  erasedAmong(tenantId: string, userIds: readonly string[]): Promise<Set<string>>;
}

const userKey = (user: UserRef) => `${user.tenantId}\u0000${user.userId}`;

/**
 * The erased users among `users` (any tenants), one lookup per tenant (the adapter reads 100 per
 * BatchGetItem); none without a store. A failed lookup throws: the caller fails its records closed.
 */
export async function erasedAmongUsers(erased: ErasedUsers | undefined, users: Iterable<UserRef>): Promise<ErasedSet> {
  const found = new Set<string>();
  if (!erased) return new ErasedSet(found);
  const byTenant = new Map<string, Set<string>>();
  for (const user of users) byTenant.set(user.tenantId, (byTenant.get(user.tenantId) ?? new Set()).add(user.userId));
  await Promise.all(
    [...byTenant].map(async ([tenantId, userIds]) => {
      for (const userId of await erased.erasedAmong(tenantId, [...userIds])) found.add(userKey({ tenantId, userId }));
    }),
  );
  return new ErasedSet(found);
}

/** The answer of `erasedAmongUsers`. */
export class ErasedSet {
  constructor(private readonly keys: ReadonlySet<string>) {}

  has(user: UserRef): boolean {
    return this.keys.size > 0 && this.keys.has(userKey(user));
  }

  get size(): number {
    return this.keys.size;
  }
}
