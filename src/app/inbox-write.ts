/** Composition of the inbox write function: POST /notifications/read-all, /seen-all, /{id}/read. */
import { Logger } from '@aws-lambda-powertools/logger';
import { DEFAULT_TENANT_CLAIM } from '../adapters/jwt-verifier.js';
import type { InboxReadService } from '../core/read/inbox-read-service.js';
import { ReadMarks } from '../core/actions/read-marks.js';
import type { InboxStateListener, ReadStateListener } from '../core/ports/inbox.js';
import type { Scheduler } from '../core/ports/scheduler.js';
import { InboxActions } from '../core/actions/inbox-actions.js';
import { InboxStateSync } from '../core/actions/inbox-state-sync.js';
import { ScheduledSnoozeReturns } from '../core/actions/snooze-returns.js';
import { InboxRepository } from '../adapters/dynamo/inbox-repository.js';
import { eventBridgeScheduler } from './parts-queues.js';
import { ReadStateSync } from '../core/actions/read-state-sync.js';
import { createInboxWriteHandler } from '../handlers/rest/inbox-api.js';
import { ENV, inboxWriteConfigFromEnv, type Env, type InboxWriteConfig } from './config.js';
import { inboxReadService, readStateRepository } from './inbox.js';
import { connectionPusher } from './parts-live.js';
import { connectionRepository, createParts, documentClient, type Parts } from './parts.js';
import type { UserRef } from '../core/model/user.js';

/** `scheduler`: the snooze comeback's scheduler (EventBridge Scheduler on AWS, the local scheduler locally). */
export function composeInboxWrite(parts: Parts, config: InboxWriteConfig, scheduler?: Scheduler) {
  // Read-state sync to the user's devices needs the WebSocket API; without it the REST API still works.
  if (!config.readStateSync) parts.logger.warn(`${ENV.WS_MANAGEMENT_ENDPOINT} is not set: read_state is not pushed to connected devices`);
  const reads = inboxReadService(parts, config, 'write');
  const marks = new ReadMarks({
    readState: readStateRepository(parts, config),
    view: reads,
    clock: parts.clock,
    inboxTtlDays: config.inboxTtlDays,
    ...(config.readStateSync ? { listener: readStateSyncListener(parts, config, (user) => reads.counts(user)) } : {}),
  });
  const snoozeScheduler = scheduler ?? (config.snooze?.scheduler ? eventBridgeScheduler(parts, config.snooze.scheduler) : undefined);
  if (!config.snooze || !snoozeScheduler) parts.logger.warn(`${ENV.SNOOZE_QUEUE_ARN} or the scheduler is not set: snooze answers 400`);
  const actions = new InboxActions({
    view: reads,
    readState: readStateRepository(parts, config),
    itemStates: readStateRepository(parts, config),
    clock: parts.clock,
    inboxTtlDays: config.inboxTtlDays,
    ...(config.readStateSync ? { listener: inboxStateSyncListener(parts, config, (user) => reads.counts(user)) } : {}),
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
    marks,
    actions,
    tenantClaim: config.tenantClaim ?? DEFAULT_TENANT_CLAIM,
    corsAllowOrigins: config.corsAllowOrigins,
    logger: parts.logger,
  });
}

/** Like the read-state sync: a failed push is logged (WARN), never turned into a failed REST call. */
function inboxStateSyncListener(parts: Parts, config: InboxWriteConfig, counts: (user: UserRef) => ReturnType<InboxReadService['counts']>): InboxStateListener {
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
function readStateSyncListener(parts: Parts, config: InboxWriteConfig, counts: (user: UserRef) => ReturnType<InboxReadService['counts']>): ReadStateListener {
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
