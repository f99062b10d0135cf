/**
 * The one push routine to a WebSocket connection: claim each (notification, connection) pair in the
 * ledger -> post the planned messages -> on 410 Gone remove the connection -> on failure give the
 * claims back, so the retry (a redelivered record or release) pushes them and nothing twice.
 */
import type { ConnectionDirectory, ConnectionPusher, ConnectionTarget, DeliveryErrorReporter, DeliveryLedger, PostOutcome } from '../ports/live.js';
import { planMessages, type PendingPush } from './live-messages.js';
import type { UserRef } from '../model/user.js';

export interface ConnectionPushDeps {
  ledger: DeliveryLedger;
  pusher: ConnectionPusher;
  directory: Pick<ConnectionDirectory, 'removeConnection'>;
  onError?: DeliveryErrorReporter;
}

/**
 * How far a failure reaches. `message`: a failed claim drops only that push, a failed post only
 * that message (the others still go; a failed 410 cleanup is only reported). `connection`: any
 * failed claim, post or 410 cleanup gives back every unsent claim of the connection and posts
 * nothing more to it (a release is retried whole).
 */
export type FailureScope = 'message' | 'connection';

export interface ConnectionPushResult<Tag> {
  messagesSent: number;
  /** Pushes skipped because the pair was already claimed (delivered before). */
  duplicatesSkipped: number;
  /** The connection answered 410 Gone (its removal was attempted). */
  gone: boolean;
  /** Pushes a retry must deliver (their claim failed, or their post failed and the claim was given back). */
  failed: PendingPush<Tag>[];
  /** The errors behind `failed`, in the order they happened. */
  errors: unknown[];
}

const noReport: DeliveryErrorReporter = () => undefined;

/** Claims every push, then posts the planned messages oldest first; stops at 410 Gone. */
export async function pushToConnection<Tag>(deps: ConnectionPushDeps, target: ConnectionTarget, pushes: readonly PendingPush<Tag>[], scope: FailureScope): Promise<ConnectionPushResult<Tag>> {
  const onError = deps.onError ?? noReport;
  const { connectionId } = target;
  const result: ConnectionPushResult<Tag> = { messagesSent: 0, duplicatesSkipped: 0, gone: false, failed: [], errors: [] };
  const fail = (failed: readonly PendingPush<Tag>[], error: unknown) => {
    result.failed.push(...failed);
    result.errors.push(error);
  };
  const giveBack = (claims: readonly PendingPush<Tag>[]) =>
    Promise.all(
      claims.map((push) =>
        // A claim that cannot be given back keeps the pair "delivered" (fail closed): no duplicate,
        // and the client catches the notification up over REST.
        deps.ledger.release(push.notification.id, connectionId).catch((error: unknown) => onError('claim release failed', error, { notificationId: push.notification.id, connectionId })),
      ),
    );

  const claimed: PendingPush<Tag>[] = [];
  await Promise.all(
    pushes.map(async (push) => {
      try {
        if (await deps.ledger.claim(push.notification.id, connectionId)) claimed.push(push);
        else result.duplicatesSkipped += 1;
      } catch (error) {
        // Fail closed: without a claim we do not push; the retry claims it again.
        onError('delivery claim failed', error, { notificationId: push.notification.id, connectionId });
        fail([push], error);
      }
    }),
  );
  if (scope === 'connection' && result.failed.length > 0) {
    result.failed.push(...claimed);
    await giveBack(claimed);
    return result;
  }

  const messages = planMessages(claimed);
  for (const [index, message] of messages.entries()) {
    let outcome: PostOutcome;
    try {
      outcome = await deps.pusher.post(connectionId, message.payload);
    } catch (error) {
      onError('push failed, will retry', error, { connectionId });
      if (scope === 'message') {
        fail(message.pushes, error);
        await giveBack(message.pushes);
        continue;
      }
      const unsent = messages.slice(index).flatMap((unsentMessage) => unsentMessage.pushes);
      fail(unsent, error);
      await giveBack(unsent);
      return result;
    }
    if (outcome === 'gone') {
      result.gone = true;
      try {
        await deps.directory.removeConnection(target);
      } catch (error) {
        onError('stale connection cleanup failed', error, { connectionId });
        if (scope === 'connection') {
          // Given back, the retry posts again, meets 410 again and retries the removal.
          const unsent = messages.slice(index).flatMap((unsentMessage) => unsentMessage.pushes);
          fail(unsent, error);
          await giveBack(unsent);
        }
      }
      return result;
    }
    result.messagesSent += 1;
  }
  return result;
}

/** A payload without claims (e.g. read state): post it; on 410 Gone remove the connection. Throws on failure. */
export async function postOrRemoveStale(deps: Pick<ConnectionPushDeps, 'pusher' | 'directory'>, target: ConnectionTarget, payload: string): Promise<PostOutcome> {
  const outcome = await deps.pusher.post(target.connectionId, payload);
  if (outcome === 'gone') await deps.directory.removeConnection(target);
  return outcome;
}

/**
 * Posts a claim-free payload to every live connection of one user (one presence lookup); the
 * payload is built only when the user has a connection. Every connection is tried; failures throw
 * together so the caller's retry covers them.
 */
export async function pushToUserConnections(
  deps: Pick<ConnectionPushDeps, 'pusher'> & { directory: Pick<ConnectionDirectory, 'connectionsOf' | 'removeConnection'> },
  user: UserRef,
  buildPayload: () => Promise<string>,
  messageType: string,
): Promise<void> {
  const connections = await deps.directory.connectionsOf([user]);
  if (connections.length === 0) return;
  const payload = await buildPayload();
  const failures: unknown[] = [];
  await Promise.all(
    connections.map(async (connection) => {
      try {
        await postOrRemoveStale(deps, connection, payload);
      } catch (error) {
        failures.push(error);
      }
    }),
  );
  if (failures.length > 0) throw new AggregateError(failures, `${messageType} push failed for ${failures.length} of ${connections.length} connections`);
}
