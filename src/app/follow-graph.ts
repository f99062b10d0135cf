/** The FollowGraphRepository of a Parts (fan-out and promotion): a full pack chunk is a WARN, not a retried failure. */
import { FollowGraphRepository } from '../adapters/dynamo/follow-graph-repository.js';
import { documentClient, type Parts } from './parts.js';

/** `inboxTtlDays`: how long an unfollower's inbox keeps the account's posts (their former-follower entry lives as long). */
export function followGraphRepository(parts: Parts, graphTable: string, inboxTtlDays?: number): FollowGraphRepository {
  return parts.shared(followGraphRepository, [graphTable, inboxTtlDays], () =>
    new FollowGraphRepository(documentClient(parts), graphTable, {
      ...(inboxTtlDays !== undefined ? { formerFollowerTtlDays: inboxTtlDays } : {}),
      // Retrying cannot help (the item is at 400 KB): the edges keep the follows, the inbox does not merge those feeds.
      onPackFull: (entries, error) =>
        parts.logger.warn('followed-celebrities pack chunk full (400 KB DynamoDB item limit): follows stored as edges only, their feeds are not merged into the inbox', {
          follows: entries.map(({ tenantId, userId, celebrityId }) => ({ tenantId, userId, celebrityId })),
          error,
        }),
    }),
  );
}
