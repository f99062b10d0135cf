/**
 * The local runtime: the same compositions as on AWS (src/app), on one machine, with dynalite for
 * DynamoDB and local stand-ins for EventBridge, SQS, Scheduler, API Gateway (REST and WebSocket)
 * and the identity provider. No AWS account, no Docker. One `Parts` for the whole runtime, so each
 * shared object (connection repository, preferences cache, inbox service...) exists once.
 */
import { ensureCelebrityPostsIndex } from '../adapters/dynamo/celebrity-posts-log.js';
import { ensureErasureFootprint } from '../adapters/dynamo/erasure-footprint-migration.js';
import { ensureReadState } from '../adapters/dynamo/read-state-migration.js';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { Logger } from '@aws-lambda-powertools/logger';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { createParts, documentClient, type InstrumentableClient } from '../app/parts.js';
import { systemClock, type Clock } from '../core/ports/clock.js';
import { writeRuntimeInfo } from './runtime-info.js';
import { DEFAULT_TENANT_CLAIM, createJwtVerifier } from '../adapters/jwt-verifier.js';
import { ensureFollowedCelebrityPacks } from '../adapters/dynamo/followed-celebs-pack.js';
import { serveCatalog } from '../notifications/deployed.js';
import { loadCatalogEntry } from './catalog-entry.js';
import { createContractFilesRoute } from './contract-files.js';
import { createDemoPageRoute } from './demo-page.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION, startEmbeddedDynamo, type EmbeddedDynamo } from './embedded-dynamo.js';
import type { LocalEndpoints } from './endpoints.js';
import { localFunctionConfigs, type LocalFunctionConfigs } from './function-configs.js';
import { sourceFunctions, type LocalFunctionSet } from './function-set.js';
import { LOCAL_FUNCTIONS } from './functions.js';
import { bundledFunctions, checkBundleImports, readLocalDeployment } from './deployed/bundled-functions.js';
import { localBundleWorld } from './deployed/bundle-world.js';
import { createRequestListener, type LocalRoute } from './http/router.js';
import { attachLocalLiveDelivery, startLocalGateway, type LocalLiveDelivery } from './live-delivery.js';
import { LocalScheduler } from './scheduler/local-scheduler.js';
import { createLocalSchedulerRoute, LOCAL_SCHEDULE_GROUP, LOCAL_SCHEDULER_PATH, LOCAL_SCHEDULER_ROLES } from './scheduler/scheduler-api.js';
import { eventBridgeScheduler } from '../app/parts-queues.js';
import { awsCallRecorderFor, currentInvocation, invokedAs, principalOf, queueConsumer } from './aws-calls/call-recorder.js';
import { ENV } from '../env.js';
import { FileExportStore } from './file-export-store.js';
import { LocalEventArchive } from './eventbridge/archive.js';
import { attachPipelineConsumers, closeLocalPipelineQueues, createLocalPipelineQueues, localPipelineRoutes, type LocalPipelineQueues, DEFAULT_LOCAL_MAX_RECEIVE_COUNT } from './pipeline.js';
import { createRestGateway } from './apigateway/rest-gateway.js';
import { INTAKE_BACKLOG_LIMIT_DEFAULT, INTAKE_BACKLOG_SECONDS_DEFAULT, LOCAL_FUNCTION_TIMEOUT_MS_DEFAULT, type LocalSettings } from './settings.js';
import { attachChannelConsumers, createLocalChannels, localUnsubscribeSecret, type LocalChannels } from './channels.js';
import { inboundSnsEvent } from './sms/sms-voice-v2.js';
import { LOCAL_AUDIENCE, LOCAL_ISSUER, loadLocalSecrets, type LocalSecrets } from './signing-key.js';
import { SqsAuditBacklog } from '../adapters/audit/sqs-backlog.js';
import { installAuditTrail } from '../app/audit/audit-trail.js';
import { sqsClient } from '../app/parts-queues.js';
import { startLocalAudit, type LocalAudit } from './audit/local-audit.js';

export type { LocalEndpoints } from './endpoints.js';

export const EVENT_BUS_NAME = 'notifications';

export interface LocalRuntime {
  endpoints: LocalEndpoints;
  settings: LocalSettings;
  /** The runtime's logger (`LOG_LEVEL`). */
  logger: Logger;
  /** Where the functions come from: `sources`, or the cdk.out directory of the deployed bundles (`LOCAL_FUNCTIONS`). */
  functionsFrom: string;
  dynamo: EmbeddedDynamo;
  documentClient: DynamoDBDocumentClient;
  /** The typed config each function was composed from (table names, queue URLs, settings). */
  configs: LocalFunctionConfigs;
  secrets: LocalSecrets;
  /** Local SQS queues of the event pipeline (intake per type, urgent, info, promotion; each with `.deadLetterQueue`), journaled under DATA_DIR/queues. */
  queues: LocalPipelineQueues;
  /** WebSocket gateway (+ `@connections`) and the delivery consumers. */
  live: LocalLiveDelivery;
  /** One-time schedules (EventBridge Scheduler stand-in), persisted under DATA_DIR/scheduler. */
  scheduler: LocalScheduler;
  /** The bus archive (DATA_DIR/eventbridge/archive.jsonl): StartReplay puts a time range back on the intake queues. */
  archive: LocalEventArchive;
  /** The SNS mobile-push and SES v2 stand-ins: what each device and mailbox received. */
  channels: LocalChannels;
  /** The audit trail: its writer, the archive under DATA_DIR/audit, counts, and an outage switch for tests. */
  audit: LocalAudit;
  close(): Promise<void>;
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
}

/** Waits for the promises to settle, or `capMs`, whichever comes first. */
async function settledWithin(promises: readonly Promise<unknown>[], capMs: number): Promise<void> {
  if (promises.length === 0) return;
  let timer: NodeJS.Timeout | undefined;
  const capped = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, capMs);
  });
  await Promise.race([Promise.allSettled(promises), capped]);
  clearTimeout(timer);
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}

export interface LocalRuntimeOptions {
  /** The functions' and the scheduler's clock (tests move it instead of waiting for wall-clock boundaries); default the system clock. */
  clock?: Clock;
  /** Called with every SDK client the functions use, after the AWS call recorder (the live-delivery bench times each call with it). */
  instrument?: (client: InstrumentableClient) => void;
}

export async function startLocalRuntime(settings: LocalSettings, options: LocalRuntimeOptions = {}): Promise<LocalRuntime> {
  const logger = new Logger({ serviceName: 'local-runtime', logLevel: (settings.logLevel as 'WARN' | undefined) ?? 'WARN' });
  // A team's catalog first: every function below is composed over it, as its bundle would be on AWS.
  serveCatalog(settings.catalogEntry ? await loadCatalogEntry(settings.catalogEntry, join(settings.dataDir, 'catalog-entry')) : undefined);
  // LOCAL_FUNCTIONS: also from the process environment, so the deployed-bundles run (npm run test:deployed) reaches the runtimes its tests start in-process.
  const functionsFrom = settings.functionsFrom ?? process.env[ENV.LOCAL_FUNCTIONS];
  const deployment = functionsFrom ? { dir: resolve(functionsFrom), map: readLocalDeployment(resolve(functionsFrom)) } : undefined;
  // A bundle that imports what Lambda does not provide fails before anything starts.
  if (deployment) await checkBundleImports(deployment.dir, deployment.map);
  // In its own thread: DynamoDB's work runs beside the functions, REST and the gateway, as on AWS.
  const dynamo = await startEmbeddedDynamo({ path: join(settings.dataDir, 'dynamodb'), inWorker: true });
  const secrets = await loadLocalSecrets(settings.dataDir);
  // One-time schedules (sendAt, held live pushes), persisted with the data; started once the queues exist.
  const clock = options.clock ?? systemClock;
  const scheduler = await LocalScheduler.open({ dir: join(settings.dataDir, 'scheduler'), logger, nowMs: () => clock.nowMs() });
  const verifier = createJwtVerifier({ issuer: LOCAL_ISSUER, audience: LOCAL_AUDIENCE, jwks: secrets.jwks, tenantClaim: DEFAULT_TENANT_CLAIM });
  // The functions are composed once the configs know the listeners' URLs; the gateway asks for the authorizer only when a client connects.
  const composed: { functions?: LocalFunctionSet } = {};
  const authorizer = invokedAs(principalOf('authorizer'), async (event: APIGatewayRequestAuthorizerEvent) => {
    if (!composed.functions) throw new Error('the local runtime is starting');
    return composed.functions.authorizer(event);
  });

  // 1. The listeners, whose URLs the configs need: the HTTP server (REST, PutEvents, SQS) and the WebSocket gateway.
  let routes: LocalRoute[] = [];
  const listener = createRequestListener(() => routes, (error) => logger.error('local http error', { error: error as Error }));
  // Requests still being handled when the runtime closes: close() waits for them (they use DynamoDB).
  const requestsInFlight = new Set<Promise<void>>();
  const httpServer = createServer((req, res) => {
    const handling: Promise<void> = listener(req, res).finally(() => requestsInFlight.delete(handling));
    requestsInFlight.add(handling);
  });
  const http = `http://${settings.host}:${await listen(httpServer, settings.port, settings.host)}`;
  const gateway = await startLocalGateway({ host: settings.host, port: settings.wsPort, authorizer, logger });
  const endpoints: LocalEndpoints = { http, ws: gateway.endpoint, events: http, eventBusName: EVENT_BUS_NAME };

  // 2. The queues, at the HTTP server's URL (journaled under DATA_DIR/queues).
  const queues = createLocalPipelineQueues({ httpEndpoint: http, settings, logger, queueDir: join(settings.dataDir, 'queues') });
  const channels = createLocalChannels({ http, serverHost: settings.host, credentials: queues.sqsCredentials, sms: { selfManagedOptOuts: settings.smsSelfManagedOptOuts ?? false, nowMs: () => clock.nowMs() }, verifier });

  // 3. The typed configs, then every function composed on one Parts.
  const configs = localFunctionConfigs({
    settings,
    tables: dynamo.tableNames,
    cursorSecret: secrets.cursorSecret,
    deliveryJobSecret: secrets.deliveryJobSecret,
    snoozeJobSecret: secrets.snoozeJobSecret,
    managementEndpoint: gateway.managementEndpoint,
    queues: {
      urgentUrl: queues.urgent.url,
      urgentArn: queues.urgent.arn,
      infoUrl: queues.info.url,
      promotionUrl: queues.promotion.url,
      privacyUrl: queues.privacy.url,
      intakeArnOf: (detailType) => queues.intake[detailType]!.arn,
      channels: { push: { url: queues.push.url, arn: queues.push.arn }, email: { url: queues.email.url, arn: queues.email.arn }, sms: { url: queues.sms.url, arn: queues.sms.arn } },
      alertsUrl: queues.alerts.url,
    },
    channels: { snsEndpoint: channels.snsEndpoint, sesEndpoint: channels.sesEndpoint, smsEndpoint: channels.smsEndpoint, unsubscribeSecret: localUnsubscribeSecret(secrets.deliveryJobSecret), unsubscribeBaseUrl: http },
  });
  // RECORD_AWS_CALLS: also from the process environment, so the test suite records the runtimes it starts in-process.
  // Not a runtime serving a team's catalog: the least-privilege check compares with the stack of the built-in catalog.
  const recordingDir = settings.recordAwsCallsDir ?? process.env[ENV.RECORD_AWS_CALLS];
  if (recordingDir && settings.catalogEntry) logger.warn('AWS calls not recorded: this runtime serves a team catalog (CATALOG_ENTRY), the least-privilege check knows the built-in one', { catalogEntry: settings.catalogEntry });
  const recorder = settings.catalogEntry ? undefined : awsCallRecorderFor(recordingDir, dynamo.tableNames);
  const instruments = [...(recorder ? [(client: InstrumentableClient) => recorder.instrument(client)] : []), ...(options.instrument ? [options.instrument] : [])];
  const parts = createParts({
    logger,
    clock,
    aws: {
      region: LOCAL_REGION,
      credentials: LOCAL_CREDENTIALS,
      dynamoEndpoint: dynamo.endpoint,
      sqsEndpoint: http,
      sqsCredentials: queues.sqsCredentials,
      schedulerEndpoint: `${http}${LOCAL_SCHEDULER_PATH}`,
      ...(instruments.length > 0 ? { instrument: (client: InstrumentableClient) => instruments.forEach((instrument) => instrument(client)) } : {}),
      // Recording: a coalesced request holds one function's calls, so each recorded call is its function's own (as on AWS).
      ...(recorder ? { callScope: currentInvocation } : {}),
    },
  });
  // The functions schedule through the SDK against the Scheduler stand-in, each with its role (as on AWS).
  const schedules = eventBridgeScheduler(parts, { groupName: LOCAL_SCHEDULE_GROUP, roleArn: LOCAL_SCHEDULER_ROLES.target });
  const snoozeSchedules = eventBridgeScheduler(parts, { groupName: LOCAL_SCHEDULE_GROUP, roleArn: LOCAL_SCHEDULER_ROLES.snooze });
  // A data dir from 0.1.0 has FOLLOWING_CELEBS edges but no packs: build them once, before any consumer runs.
  const backfill = await ensureFollowedCelebrityPacks(documentClient(parts), dynamo.tableNames.graph, {
    onFull: (writes) => logger.warn('followed-celebrities pack chunk full (400 KB DynamoDB item limit): follows kept as edges only', { follows: writes.length }),
  });
  if (backfill && backfill.packed > 0) logger.info('followed-celebrities packs built from FOLLOWING_CELEBS edges', { ...backfill });
  // And its celebrity posts log has no count index: index the logged posts once.
  const indexed = await ensureCelebrityPostsIndex(documentClient(parts), dynamo.tableNames.graph, dynamo.tableNames.inbox);
  if (indexed) logger.info('celebrity posts count index built from the celebrity posts log', { indexed });
  // And its single reads (READ#) are not the exceptions reads take: convert them once.
  const converted = await ensureReadState(documentClient(parts), dynamo.tableNames.graph, dynamo.tableNames.readMarks);
  if (converted) logger.info('0.1.0 single reads converted to per-item exceptions', { converted });
  // And its follow pairs and notifications written before the erasure footprint cannot be found by an erasure: write it once.
  const footprint = await ensureErasureFootprint(documentClient(parts), { graph: dynamo.tableNames.graph, inbox: dynamo.tableNames.inbox });
  if (footprint && footprint.followingEntries + footprint.authorRefs > 0) logger.info('erasure footprint written for data from before it', { ...footprint });
  // Audit trail (src/local/audit/): installed before the consumers are composed; its backlog queue is drained into the archive.
  const audit = await startLocalAudit({ dataDir: settings.dataDir, documentClient: documentClient(parts), idempotencyTable: dynamo.tableNames.idempotency, backlog: new SqsAuditBacklog(sqsClient(parts), queues.auditBacklog.url), logger, clock });
  installAuditTrail(parts, audit.trail);
  queues.auditBacklog.attachConsumer(LOCAL_FUNCTIONS['audit-drain'](parts, audit.trail));
  // LOCAL_FUNCTIONS: the deployed esbuild bundles instead of the sources (src/local/deployed/).
  const bundles = deployment
    ? await bundledFunctions(
        deployment.dir,
        deployment.map,
        localBundleWorld({
          settings,
          region: LOCAL_REGION,
          tables: dynamo.tableNames,
          registry: queues.registry,
          secrets: { cursor: secrets.cursorSecret, deliveryJob: secrets.deliveryJobSecret, snoozeJob: secrets.snoozeJobSecret, unsubscribe: localUnsubscribeSecret(secrets.deliveryJobSecret) },
          credentials: queues.sqsCredentials,
          http,
          dynamoEndpoint: dynamo.endpoint,
          managementEndpoint: gateway.managementEndpoint,
          snsEndpoint: channels.snsEndpoint,
          sesEndpoint: channels.sesEndpoint,
          smsEndpoint: channels.smsEndpoint,
          configs,
          functionTimeoutMs: settings.functionTimeoutMs ?? LOCAL_FUNCTION_TIMEOUT_MS_DEFAULT,
          maxReceiveCount: settings.maxReceiveCount ?? DEFAULT_LOCAL_MAX_RECEIVE_COUNT,
        }),
      ).catch(async (error: unknown) => {
        // A bundle that fails to load (throws at import, exports no handler): close what started, then fail.
        await scheduler.close();
        closeLocalPipelineQueues(queues);
        await gateway.close();
        await close(httpServer);
        parts.destroyClients();
        await dynamo.close();
        throw error;
      })
    : undefined;
  const functions = bundles?.functions ?? sourceFunctions({ parts, configs, logger, verifier, schedules, snoozeSchedules });
  composed.functions = functions;
  attachPipelineConsumers(queues, functions, recorder);
  attachChannelConsumers(queues, functions, recorder);
  // SMS inbound: the stand-in publishes each inbound text to its topic, whose subscriber is the sms-inbound function (from the sources in both modes).
  const smsInbound = invokedAs(principalOf('sms-inbound'), LOCAL_FUNCTIONS['sms-inbound'](parts, configs.smsInbound));
  channels.sms.onInbound = (message, publishedAtMs) => smsInbound(inboundSnsEvent(message, publishedAtMs));
  // The erase and export job (from the sources, also in the deployed-bundles mode): the runtime's scheduler, export files (DATA_DIR/exports) and SNS stand-in stand in for AWS.
  queues.privacy.attachConsumer(queueConsumer(recorder, principalOf('privacy-job'), queues.privacy.name, LOCAL_FUNCTIONS['privacy-job'](parts, configs.privacyJob, { schedules: scheduler, exports: new FileExportStore(join(settings.dataDir, 'exports')), snsEndpoint: channels.snsEndpoint })));
  const live = attachLocalLiveDelivery({ gateway, functions, queues, ...(recorder ? { recorder } : {}) });
  const jwksRoute: LocalRoute = {
    async handle(request) {
      if (request.method !== 'GET' || request.url.pathname !== '/.well-known/jwks.json') return undefined;
      return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(secrets.jwks) };
    },
  };
  const restGateway = createRestGateway(
    {
      inboxRead: invokedAs(principalOf('rest-read'), functions.restRead),
      inboxWrite: invokedAs(principalOf('rest-write'), functions.restWrite),
      preferences: invokedAs(principalOf('rest-preferences'), functions.restPreferences),
    },
    authorizer,
    configs.inbox.corsAllowOrigins,
  );
  // Dev-only: the demo inbox page at `/` and its token and catalog helpers (src/local/demo-page.ts).
  const demoPage = createDemoPageRoute({ secrets, endpoints: () => endpoints, corsAllowOrigins: configs.inbox.corsAllowOrigins });
  const archive = new LocalEventArchive(join(settings.dataDir, 'eventbridge'));
  const schedulerApi = createLocalSchedulerRoute(scheduler, { region: LOCAL_REGION, credentials: queues.sqsCredentials, serverHost: settings.host });
  routes = [...localPipelineRoutes(queues, EVENT_BUS_NAME, settings.host, logger, { backlogLimit: settings.intakeBacklogLimit ?? INTAKE_BACKLOG_LIMIT_DEFAULT, backlogSeconds: settings.intakeBacklogSeconds ?? INTAKE_BACKLOG_SECONDS_DEFAULT }, archive), ...channels.routes, schedulerApi, jwksRoute, createContractFilesRoute(), restGateway, demoPage];
  // For the operator tools (npm run explain / dlq) against this DATA_DIR.
  await writeRuntimeInfo(settings.dataDir, {
    http,
    eventsEndpoint: http,
    eventBusName: EVENT_BUS_NAME,
    dynamoEndpoint: dynamo.endpoint,
    tables: dynamo.tableNames,
    managementEndpoint: gateway.managementEndpoint,
    feedShards: settings.feedShards,
    snsEndpoint: channels.snsEndpoint,
    privacyJobQueueUrl: queues.privacy.url,
    exportDir: join(settings.dataDir, 'exports'),
    queues: queues.registry.all().map((queue) => ({ name: queue.name, url: queue.url, arn: queue.arn, ...(queue.name.endsWith('-dlq') ? { sourceQueueName: queue.name.slice(0, -'-dlq'.length) } : {}) })),
  });
  scheduler.start(async (targetArn, payload, roleArn) => {
    const queue = queues.registry.byQueueName(targetArn.split(':').pop());
    // Scheduler sends with the schedule's role: recorded as that role's call.
    if (recorder && roleArn) recorder.scheduleDelivered(roleArn, queue.name);
    queue.send(payload);
  });

  return {
    endpoints,
    settings,
    logger,
    functionsFrom: functions.from,
    dynamo,
    documentClient: documentClient(parts),
    configs,
    secrets,
    queues,
    live,
    scheduler,
    archive,
    channels,
    audit,
    /** No new batch or request; running ones finish (at most one function timeout each) before DynamoDB closes. */
    async close() {
      const capMs = settings.functionTimeoutMs ?? LOCAL_FUNCTION_TIMEOUT_MS_DEFAULT;
      await queues.registry.drainAll(capMs);
      await scheduler.close();
      await live.close();
      await audit.close();
      closeLocalPipelineQueues(queues);
      await close(httpServer);
      await settledWithin([...requestsInFlight], capMs);
      parts.destroyClients();
      recorder?.flush();
      await dynamo.close();
      serveCatalog();
    },
  };
}
