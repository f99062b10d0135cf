/**
 * Post alerts (the bell on a profile), served by the preferences function: `PUT /alerts/{accountId}`
 * turns them on for an account the caller follows now, `DELETE /alerts/{accountId}` off. The caller
 * is the token's user only; an account they do not follow (or that does not exist: the answer is the
 * same, so the route tells nobody which accounts exist) is a 404.
 */
import { alertPathSchema } from '../../contract/channel-schemas.js';
import { noQuerySchema } from '../../contract/rest-schemas.js';
import type { AlertSubscriptions } from '../../core/channels/ports.js';
import { NotFoundError, ValidationError } from '../../core/model/errors.js';
import type { Clock } from '../../core/ports/clock.js';
import type { FollowGraph } from '../../core/ports/follow-graph.js';
import { identityFrom, json, type RestHandler } from './http.js';

export interface AlertsApiDeps {
  subscriptions: AlertSubscriptions;
  /** The follow pairs (consistent reads): only a current follower may turn alerts on. */
  graph: Pick<FollowGraph, 'getFollowers'>;
  tenantClaim: string;
  clock: Clock;
}

export function alertsRoutes(deps: AlertsApiDeps): Record<string, RestHandler> {
  const target = (event: Parameters<RestHandler>[0]) => {
    const user = identityFrom(event, deps.tenantClaim);
    noQuerySchema.parse(event.queryStringParameters ?? {});
    const { accountId } = alertPathSchema.parse(event.pathParameters ?? {});
    if (accountId === user.userId) throw new ValidationError('you cannot turn on alerts for your own account', [{ path: 'accountId', message: 'is the caller' }]);
    return { user, accountId };
  };
  return {
    'PUT /alerts/{accountId}': async (event) => {
      const { user, accountId } = target(event);
      const pair = (await deps.graph.getFollowers(user.tenantId, accountId, [user.userId])).get(user.userId);
      if (pair?.followedAt === undefined) throw new NotFoundError(`you do not follow ${accountId}: alerts are for accounts you follow`);
      const at = new Date(deps.clock.nowMs()).toISOString();
      await deps.subscriptions.subscribe(user.tenantId, accountId, user.userId, at);
      return json(200, { accountId, alerts: true, since: at });
    },
    'DELETE /alerts/{accountId}': async (event) => {
      const { user, accountId } = target(event);
      await deps.subscriptions.unsubscribe(user.tenantId, accountId, user.userId);
      return json(204);
    },
  };
}
