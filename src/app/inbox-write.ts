/**
 * The inbox write function (POST /notifications/read-all, /seen-all, /{id}/read and the per-item
 * and bulk actions, snooze): its config and its composition.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { DEFAULT_TENANT_CLAIM } from '../adapters/jwt-verifier.js';
import { InboxActions } from '../core/actions/inbox-actions.js';
import { InboxStateSync } from '../core/actions/inbox-state-sync.js';
import { ReadMarks } from '../core/actions/read-marks.js';
import { ReadStateSync } from '../core/actions/read-state-sync.js';
import { ScheduledSnoozeReturns } from '../core/actions/snooze-returns.js';
import type { Counts } from '../core/model/read-state.js';
import type { UserRef } from '../core/model/user.js';
import type { InboxStateListener, ReadStateListener } from '../core/ports/inbox.js';
import type { Scheduler } from '../core/ports/scheduler.js';
import { ENV, type Env } from '../env.js';
import { createInboxWriteHandler } from '../handlers/rest/inbox-api.js';
import { parseEnv, required, url } from './config-parsing.js';
import { inboxOf, inboxReadService, inboxShape, type InboxReadConfig } from './inbox.js';
import { connectionPusher } from './parts-live.js';
import { eventBridgeScheduler } from './parts-queues.js';
import { connectionRepository, createParts, inboxRepository, readStateRepository, referencingScheduler, type Parts } from './parts.js';
import { connectionsOf, connectionsShape, restOf, restShape, schedulerOf, schedulerShape, type ConnectionsConfig, type SchedulerConfig } from './shared-config.js';

export interface InboxWriteConfig extends InboxReadConfig {
  /** Read-state sync to connected devices; without it the REST API still works. */
  readStateSync?: ConnectionsConfig & { managementEndpoint: string };
  /**
   * Snooze: the comeback's push is a job signed with the snooze key (valid for a one-recipient comeback
   * only), scheduled onto the urgent queue with the snooze schedules' own role; without it snooze answers 400.
   */
  snooze?: { urgentQueueArn: string; snoozeJobSecret: string; scheduler?: SchedulerConfig; idempotencyTable: string };
}

export function inboxWriteConfigFromEnv(env: Env): InboxWriteConfig {
  const syncShape = { ...connectionsShape, WS_MANAGEMENT_ENDPOINT: url };
  const withSync = Boolean(env[ENV.WS_MANAGEMENT_ENDPOINT]);
  // One parse, so a cold start reports the sync's missing variables with the others.
  const parsed = parseEnv('inbox-write', { ...inboxShape, ...restShape, ...(withSync ? syncShape : {}) }, env);
  const base = { ...inboxOf(parsed), ...restOf(parsed) };
  if (!withSync) return { ...base, ...snoozeOf(env) };
  const live = parseEnv('inbox-write', syncShape, env);
  return { ...base, readStateSync: { ...connectionsOf(live), managementEndpoint: live.WS_MANAGEMENT_ENDPOINT }, ...snoozeOf(env) };
}

/** Snooze needs its queue, the snooze key and (on AWS) the scheduler; all or nothing. */
function snoozeOf(env: Env): Pick<InboxWriteConfig, 'snooze'> {
  if (!env[ENV.SNOOZE_QUEUE_ARN]) return {};
  const parsed = parseEnv('inbox-write (snooze)', { SNOOZE_QUEUE_ARN: required, SNOOZE_JOB_SECRET: required, IDEMPOTENCY_TABLE: required, ...schedulerShape }, env);
  return { snooze: { urgentQueueArn: parsed.SNOOZE_QUEUE_ARN, snoozeJobSecret: parsed.SNOOZE_JOB_SECRET, scheduler: schedulerOf(parsed), idempotencyTable: parsed.IDEMPOTENCY_TABLE } };
}

/** `scheduler`: the snooze comeback's scheduler (EventBridge Scheduler on AWS, the local scheduler locally). */
export function composeInboxWrite(parts: Parts, config: InboxWriteConfig, scheduler?: Scheduler) {
  // Read-state sync to the user's devices needs the WebSocket API; without it the REST API still works.
  if (!config.readStateSync) parts.logger.warn(`${ENV.WS_MANAGEMENT_ENDPOINT} is not set: read_state is not pushed to connected devices`);
  const reads = inboxReadService(parts, config, 'write');
  const counts = (user: UserRef) => reads.counts(user);
  const readState = readStateRepository(parts, config.readMarksTable);
  const marks = new ReadMarks({
    readState,
    view: reads,
    clock: parts.clock,
    inboxTtlDays: config.inboxTtlDays,
    ...(config.readStateSync ? { listener: readStateSyncListener(parts, config.readStateSync, readState, counts) } : {}),
  });
  const snoozeScheduler = scheduler ?? (config.snooze?.scheduler ? eventBridgeScheduler(parts, config.snooze.scheduler) : undefined);
  if (!config.snooze || !snoozeScheduler) parts.logger.warn(`${ENV.SNOOZE_QUEUE_ARN} or the scheduler is not set: snooze answers 400`);
  const actions = new InboxActions({
    view: reads,
    readState,
    clock: parts.clock,
    inboxTtlDays: config.inboxTtlDays,
    ...(config.readStateSync ? { listener: inboxStateSyncListener(parts, config.readStateSync, counts) } : {}),
    ...(config.snooze && snoozeScheduler
      ? {
          snoozeReturns: new ScheduledSnoozeReturns({
            inbox: inboxRepository(parts, config.inboxTable),
            // The comeback's schedule is referenced for the user's erasure (Idempotency table).
            scheduler: referencingScheduler(parts, config.snooze.idempotencyTable, snoozeScheduler),
            urgentQueueArn: config.snooze.urgentQueueArn,
            snoozeJobSecret: config.snooze.snoozeJobSecret,
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

type SyncConfig = NonNullable<InboxWriteConfig['readStateSync']>;

/** Like the read-state sync: a failed push is logged (WARN), never turned into a failed REST call. */
function inboxStateSyncListener(parts: Parts, config: SyncConfig, counts: (user: UserRef) => Promise<Counts>): InboxStateListener {
  const sync = new InboxStateSync({
    directory: connectionRepository(parts, config),
    pusher: connectionPusher(parts, config.managementEndpoint),
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
function readStateSyncListener(parts: Parts, config: SyncConfig, readState: ReturnType<typeof readStateRepository>, counts: (user: UserRef) => Promise<Counts>): ReadStateListener {
  const sync = new ReadStateSync({
    directory: connectionRepository(parts, config),
    pusher: connectionPusher(parts, config.managementEndpoint),
    readState,
    counts: { counts },
  });
  return {
    async readStateChanged(user, change) {
      try {
        await sync.readStateChanged(user, change);
      } catch (error) {
        parts.logger.warn('read_state sync failed', { tenantId: user.tenantId, userId: user.userId, error: error as Error });
      }
    },
  };
}

export function inboxWriteFunction(env: Env) {
  return composeInboxWrite(createParts({ logger: new Logger({ serviceName: 'inbox-write-api' }) }), inboxWriteConfigFromEnv(env));
}
