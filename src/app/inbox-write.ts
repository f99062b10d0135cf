/** Composition of the inbox write function: POST /notifications/read-all, /seen-all, /{id}/read. */
import { Logger } from '@aws-lambda-powertools/logger';
import { DEFAULT_TENANT_CLAIM } from '../adapters/jwt-verifier.js';
import type { InboxService } from '../core/read/inbox-service.js';
import type { InboxStateListener, ReadStateListener } from '../core/ports/inbox.js';
import type { Scheduler } from '../core/ports/scheduler.js';
import { InboxActions } from '../core/actions/inbox-actions.js';
import { InboxStateSync } from '../core/actions/inbox-state-sync.js';
import { ScheduledSnoozeReturns } from '../core/actions/snooze-returns.js';
import { InboxRepository } from '../adapters/dynamo/inbox-repository.js';
import { catalog } from '../notifications/deployed.js';
import { eventBridgeScheduler } from './parts-queues.js';
import { ReadStateSync } from '../core/actions/read-state-sync.js';
import { createInboxWriteHandler } from '../handlers/rest/inbox-api.js';
import { ENV, inboxWriteConfigFromEnv, type Env, type InboxWriteConfig } from './config.js';
import { inboxService, readStateRepository } from './inbox.js';
import { connectionPusher } from './parts-live.js';
import { connectionRepository, createParts, documentClient, type Parts } from './parts.js';
import type { UserRef } from '../core/model/user.js';

/** `scheduler`: the snooze comeback's scheduler (EventBridge Scheduler on AWS, the local scheduler locally). */
export function composeInboxWrite(parts: Parts, config: InboxWriteConfig, scheduler?: Scheduler) {
  // Read-state sync to the user's devices needs the WebSocket API; without it the REST API still works.
  if (!config.readStateSync) parts.logger.warn(`${ENV.WS_MANAGEMENT_ENDPOINT} is not set: read_state is not pushed to connected devices`);
  // The sync reads counts from the service it listens to: bound through a holder, filled below.
  const built: { service?: InboxService } = {};
  const listener = config.readStateSync ? readStateSyncListener(parts, config, (user) => built.service!.counts(user)) : undefined;
  const service = (built.service = inboxService(parts, config, listener));
  const snoozeScheduler = scheduler ?? (config.snooze?.scheduler ? eventBridgeScheduler(parts, config.snooze.scheduler) : undefined);
  if (!config.snooze || !snoozeScheduler) parts.logger.warn(`${ENV.SNOOZE_QUEUE_ARN} or the scheduler is not set: snooze answers 400`);
  const actions = new InboxActions({
    service,
    readState: readStateRepository(parts, config),
    itemStates: readStateRepository(parts, config),
    clock: parts.clock,
    inboxTtlDays: config.inboxTtlDays,
    ...(config.readStateSync ? { listener: inboxStateSyncListener(parts, config, (user) => service.counts(user)) } : {}),
    ...(config.snooze && snoozeScheduler
      ? {
          snoozeReturns: new ScheduledSnoozeReturns({
            inbox: parts.once('inbox-repository', () => new InboxRepository(documentClient(parts), config.inboxTable)),
            scheduler: snoozeScheduler,
            urgentQueueArn: config.snooze.urgentQueueArn,
            deliveryJobSecret: config.snooze.deliveryJobSecret,
            inboxTtlDays: config.inboxTtlDays,
          }),
        }
      : {}),
  });
  return createInboxWriteHandler({
    service,
    actions,
    cursorSecret: config.cursorSecret,
    tenantClaim: config.tenantClaim ?? DEFAULT_TENANT_CLAIM,
    corsAllowOrigins: config.corsAllowOrigins,
    logger: parts.logger,
    catalog,
  });
}

/** Like the read-state sync: a failed push is logged (WARN), never turned into a failed REST call. */
function inboxStateSyncListener(parts: Parts, config: InboxWriteConfig, counts: (user: UserRef) => ReturnType<InboxService['counts']>): InboxStateListener {
  const sync = new InboxStateSync({
    directory: connectionRepository(parts, config.readStateSync!),
    pusher: connectionPusher(parts, config.readStateSync!.managementEndpoint),
    counts: { counts },
  });
  const logged = async (user: UserRef, what: string, push: () => Promise<void>) => {
    try {
      await push();
    } catch (error) {
      parts.logger.warn(`${what} sync failed`, { tenantId: user.tenantId, userId: user.userId, error: error as Error });
    }
  };
  return {
    itemStateChanged: (user, action, ids) => logged(user, 'item_state', () => sync.itemStateChanged(user, action, ids)),
    archivedRead: (user, archivedAt) => logged(user, 'archived_read', () => sync.archivedRead(user, archivedAt)),
  };
}

/** A failed sync is logged, never turned into a failed REST call (the write itself succeeded). */
function readStateSyncListener(parts: Parts, config: InboxWriteConfig, counts: (user: UserRef) => ReturnType<InboxService['counts']>): ReadStateListener {
  const sync = new ReadStateSync({
    directory: connectionRepository(parts, config.readStateSync!),
    pusher: connectionPusher(parts, config.readStateSync!.managementEndpoint),
    readState: readStateRepository(parts, config),
    counts: { counts },
  });
  return {
    async readStateChanged(user) {
      try {
        await sync.readStateChanged(user);
      } catch (error) {
        parts.logger.warn('read_state sync failed', { tenantId: user.tenantId, userId: user.userId, error: error as Error });
      }
    },
  };
}

export function inboxWriteFunction(env: Env) {
  return composeInboxWrite(createParts({ logger: new Logger({ serviceName: 'inbox-write-api' }) }), inboxWriteConfigFromEnv(env));
}
