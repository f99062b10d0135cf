import { existsSync } from 'node:fs';
import { Duration, Names, type RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { WebSocketStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { Grant, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { type Construct } from 'constructs';
import { LOCK_FILE, PROJECT_ROOT, bundleSettings, entryPath } from '../bundling.js';
import { catalogAlias } from '../catalog.js';
import { acknowledge, acknowledgeWildcardResource } from '../nag.js';
import { KEY_ACTIONS } from './data-protection.js';
import type { SpecTable } from './inbox-tables.js';
import { QueueWithDlq } from './queue-with-dlq.js';
import { ENV } from '../../src/env.js';
import type { LambdaFunctionName } from '../../src/lambda/functions.js';

/** Settings every function of the app shares (from config). */
export interface FunctionDefaults {
  logLevel: string;
  logRetention: RetentionDays;
  removalPolicy: RemovalPolicy;
  /** Environment every function gets (FEED_SHARDS, INBOX_TTL_DAYS, TENANT_CLAIM, ...). */
  environment: Record<string, string>;
  /** The team's catalog module, bundled in place of the package's (`NotificationInbox` `catalogEntry`). */
  catalogEntry?: string;
}

export interface HandlerFunctionProps {
  /** The function's name in `src/lambda/functions.ts` (its entry `src/lambda/<name>.ts`), e.g. `rest-read`. */
  handler: LambdaFunctionName;
  /** POWERTOOLS_SERVICE_NAME: how logs and metrics name this function. */
  serviceName: string;
  description: string;
  defaults: FunctionDefaults;
  timeout?: Duration;
  memorySize?: number;
  environment?: Record<string, string>;
}

/** Item reads a function may be given. Scan is deliberately absent: no access pattern scans. */
export const TABLE_READ_ACTIONS = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'] as const;
export type TableReadAction = (typeof TABLE_READ_ACTIONS)[number];
export const TABLE_WRITE_ACTIONS = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'] as const;
export type TableWriteAction = (typeof TABLE_WRITE_ACTIONS)[number];

/** What the Lambda SQS poller does with the function's role (AWS's AWSLambdaSQSQueueExecutionRole): receive, delete, read attributes. */
export const SQS_CONSUMER_ACTIONS = ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'] as const;

export interface ConsumeOptions {
  batchSize: number;
  /** Omitted = no batching window (invoke as soon as messages arrive). */
  maxBatchingWindow?: Duration;
  maxConcurrency?: number;
}

/**
 * The one function construct of the app: Node.js 22 on ARM64, esbuild bundling (minified ESM with
 * source maps, settings shared with the bundle-size bench), Powertools environment, its own log
 * group with retention, X-Ray tracing, and a role with no managed policy. Every permission comes
 * from a `bind`-style helper that sets the environment variable and the exact grant together.
 */
export class HandlerFunction extends NodejsFunction {
  readonly handlerName: LambdaFunctionName;
  readonly executionRole: Role;
  /** kms actions granted so far, per customer-managed key. */
  private readonly keyActions = new Map<IKey, Set<string>>();

  constructor(scope: Construct, id: string, props: HandlerFunctionProps) {
    const logGroup = new LogGroup(scope, `${id}Logs`, {
      retention: props.defaults.logRetention,
      removalPolicy: props.defaults.removalPolicy,
    });
    const role = new Role(scope, `${id}Role`, {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Execution role of ${props.handler} (${id}): exact grants only, no managed policy`,
    });
    super(scope, id, {
      entry: entryPath(props.handler),
      handler: 'handler',
      description: props.description,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout ?? Duration.seconds(10),
      tracing: Tracing.ACTIVE,
      logGroup,
      role,
      // Installed from npm the package has no lock file (npm leaves it out): the CDK then finds the host app's.
      ...(existsSync(LOCK_FILE) ? { depsLockFilePath: LOCK_FILE, projectRoot: PROJECT_ROOT } : {}),
      bundling: {
        target: bundleSettings.target,
        format: OutputFormat.ESM,
        minify: bundleSettings.minify,
        sourceMap: bundleSettings.sourceMap,
        sourcesContent: bundleSettings.sourcesContent,
        mainFields: [...bundleSettings.mainFields],
        banner: bundleSettings.banner,
        externalModules: [...bundleSettings.externals],
        // Every function that reads the catalog imports it as `#notifications-catalog`; a bundle that does not ignores the alias.
        ...(props.defaults.catalogEntry ? { esbuildArgs: { '--alias': catalogAlias(props.defaults.catalogEntry) } } : {}),
      },
      environment: {
        POWERTOOLS_SERVICE_NAME: props.serviceName,
        POWERTOOLS_LOG_LEVEL: props.defaults.logLevel,
        POWERTOOLS_METRICS_NAMESPACE: 'ServerlessNotifications',
        // Stack traces through the bundled source maps.
        NODE_OPTIONS: '--enable-source-maps',
        ...props.defaults.environment,
        ...props.environment,
      },
    });
    this.handlerName = props.handler;
    this.executionRole = role;
    logGroup.grantWrite(role);
    acknowledge(this, 'AwsSolutions-L1', 'Node.js 22 is the runtime this project targets and tests (ESM bundle, node22 target); moving to a newer runtime is a deliberate upgrade, not a drive-by.');
    acknowledge(role, 'AwsSolutions-IAM5[Resource::*]', 'X-Ray tracing: xray:PutTraceSegments and xray:PutTelemetryRecords do not support resource-level permissions, so AWS requires Resource "*" for them.');
  }

  /**
   * Env var of the table + exactly the item reads the function's code sends (no default: every
   * call site names them) on exactly that table. test/infra/least-privilege.test.ts holds each
   * function to its declared set, both ways.
   */
  readTable(binding: SpecTable, actions: readonly TableReadAction[]): this {
    this.bindTableName(binding);
    if (actions.length > 0) this.allow([...actions], [binding.table.tableArn]);
    if (actions.length > 0) this.allowKey(binding.encryptionKey, KEY_ACTIONS.table);
    return this;
  }

  /**
   * Item reads on that table only of items whose partition key matches one of the patterns (IAM
   * `dynamodb:LeadingKeys`, StringLike): e.g. BatchGetItem of feed items, never of an inbox.
   */
  readTableKeys(binding: SpecTable, actions: readonly Exclude<TableReadAction, 'dynamodb:Query'>[] | readonly TableReadAction[], leadingKeyPatterns: readonly string[]): this {
    return this.tableKeys(binding, actions, leadingKeyPatterns, []);
  }

  /** Env var of the table + exactly the item writes the function's code sends, on exactly that table. */
  writeTable(binding: SpecTable, actions: readonly TableWriteAction[]): this {
    this.bindTableName(binding);
    if (actions.length > 0) this.allow([...actions], [binding.table.tableArn]);
    if (actions.length > 0) this.allowKey(binding.encryptionKey, KEY_ACTIONS.table);
    return this;
  }

  /**
   * Item writes on that table only for items whose partition key matches one of the patterns (IAM
   * `dynamodb:LeadingKeys`, StringLike) and none of `exceptKeys` (StringNotLike): e.g. UpdateItem of a
   * count index slot, never of an inbox item. (ForAllValues over no key at all is true: only item writes, never Scan.)
   */
  writeTableKeys(binding: SpecTable, actions: readonly TableWriteAction[], leadingKeyPatterns: readonly string[], exceptKeys: readonly string[] = []): this {
    return this.tableKeys(binding, actions, leadingKeyPatterns, exceptKeys);
  }

  /**
   * UpdateItem on that table of items whose partition key matches one of the patterns, touching only
   * the named attributes besides the key (IAM `dynamodb:Attributes`, no returned values): e.g. the
   * read API moving the counts floor of the marks item, and nothing else of it.
   */
  updateTableAttributes(binding: SpecTable, leadingKeyPatterns: readonly string[], attributes: readonly string[]): this {
    this.bindTableName(binding);
    const keyAttributes = [binding.spec.partitionKey.name, ...(binding.spec.sortKey ? [binding.spec.sortKey.name] : [])];
    this.addToRolePolicy(
      new PolicyStatement({
        actions: ['dynamodb:UpdateItem'],
        resources: [binding.table.tableArn],
        conditions: {
          'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...leadingKeyPatterns] },
          'ForAllValues:StringEquals': { 'dynamodb:Attributes': [...keyAttributes, ...attributes] },
          StringEqualsIfExists: { 'dynamodb:ReturnValues': 'NONE' },
        },
      }),
    );
    this.allowKey(binding.encryptionKey, KEY_ACTIONS.table);
    return this;
  }

  private tableKeys(binding: SpecTable, actions: readonly string[], leadingKeyPatterns: readonly string[], exceptKeys: readonly string[]): this {
    this.bindTableName(binding);
    if (actions.length === 0) return this;
    this.addToRolePolicy(
      new PolicyStatement({
        actions: [...actions],
        resources: [binding.table.tableArn],
        conditions: {
          'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...leadingKeyPatterns] },
          ...(exceptKeys.length > 0 ? { 'ForAllValues:StringNotLike': { 'dynamodb:LeadingKeys': [...exceptKeys] } } : {}),
        },
      }),
    );
    this.allowKey(binding.encryptionKey, KEY_ACTIONS.table);
    return this;
  }

  /** Env var with the queue URL + sqs:SendMessage (which also covers SendMessageBatch). */
  sendTo(queue: IQueue, envVar: string): this {
    this.addEnvironment(envVar, queue.queueUrl);
    this.allow(['sqs:SendMessage'], [queue.queueArn]);
    this.allowKey(queue.encryptionMasterKey, KEY_ACTIONS.sendToQueue);
    return this;
  }

  /**
   * Consumes a queue with partial batch responses (one poison message never re-runs its
   * neighbours). Refuses a queue whose visibility timeout is under 6x this function's timeout.
   */
  consume(source: QueueWithDlq, options: ConsumeOptions): this {
    const timeout = (this.timeout ?? Duration.seconds(3)).toSeconds();
    if (source.visibilityTimeout.toSeconds() < QueueWithDlq.VISIBILITY_FACTOR * timeout) {
      throw new Error(`${this.node.path}: queue ${source.node.path} visibility timeout ${source.visibilityTimeout.toSeconds()}s is under ${QueueWithDlq.VISIBILITY_FACTOR}x the function timeout ${timeout}s`);
    }
    // The mapping SqsEventSource would make (same id, so the same logical id), with the three actions
    // the Lambda poller needs instead of its grantConsumeMessages: no ChangeMessageVisibility or
    // GetQueueUrl, which nothing calls (the least-privilege check found them unused).
    this.addEventSourceMapping(`SqsEventSource:${Names.nodeUniqueId(source.queue.node)}`, {
      eventSourceArn: source.queue.queueArn,
      batchSize: options.batchSize,
      ...(options.maxBatchingWindow ? { maxBatchingWindow: options.maxBatchingWindow } : {}),
      ...(options.maxConcurrency ? { maxConcurrency: options.maxConcurrency } : {}),
      reportBatchItemFailures: true,
    });
    this.allow([...SQS_CONSUMER_ACTIONS], [source.queue.queueArn]);
    this.allowKey(source.queue.encryptionMasterKey, KEY_ACTIONS.consumeQueue);
    // The consumer logs a record failing its last receive as dead-lettered (SQS moves it silently).
    this.addEnvironment(ENV.MAX_RECEIVE_COUNT, String(source.maxReceiveCount));
    return this;
  }

  /**
   * WS_MANAGEMENT_ENDPOINT + execute-api:ManageConnections for POST @connections/{id}
   * (PostToConnection) on exactly this stage; not GET (connection info) nor DELETE (disconnect).
   */
  postToConnections(stage: WebSocketStage): this {
    const stack = Stack.of(this);
    this.addEnvironment(ENV.WS_MANAGEMENT_ENDPOINT, stage.callbackUrl);
    const apiArn = stack.formatArn({ service: 'execute-api', resource: stage.api.apiId });
    const connections = `${apiArn}/${stage.stageName}/POST/@connections/*`;
    this.allow(['execute-api:ManageConnections'], [connections]);
    acknowledgeWildcardResource(this.executionRole, connections, 'Connection ids are only known at run time; the grant is limited to POST (PostToConnection) on this one API stage.');
    return this;
  }

  /** Exact actions on exact resources, added to this function's role. */
  allow(actions: string[], resources: string[]): Grant {
    return Grant.addToPrincipal({ grantee: this, actions, resourceArns: resources });
  }

  /** kms actions on a customer-managed key (none when the resource uses an AWS-managed key), each granted once. */
  private allowKey(key: IKey | undefined, actions: readonly string[]): void {
    if (!key) return;
    const granted = this.keyActions.get(key) ?? new Set<string>();
    const missing = actions.filter((action) => !granted.has(action));
    if (missing.length === 0) return;
    for (const action of missing) granted.add(action);
    this.keyActions.set(key, granted);
    this.allow(missing, [key.keyArn]);
  }

  /** For statements that need conditions. */
  addStatement(statement: PolicyStatement): this {
    this.addToRolePolicy(statement);
    return this;
  }

  private bindTableName(binding: SpecTable): void {
    this.addEnvironment(binding.spec.envVar, binding.table.tableName);
  }
}
