/**
 * Records every AWS call each local function makes (`RECORD_AWS_CALLS=<dir>`), for the
 * least-privilege check: an SDK middleware on every client the runtime builds notes the service,
 * operation and resources of each call (tables with the partition keys touched, queues, schedules,
 * endpoints, connections), and the function that made it from the invocation it runs in
 * (AsyncLocalStorage: the runtime wraps each handler with `invokedAs`). The Lambda event source
 * mapping's polling and Scheduler's deliveries, which AWS makes with the function's or the
 * schedule's role, are recorded where the local runtime does them. Calls outside any invocation
 * (startup backfills, a test seeding data) are not a function's and are left out.
 * Identical calls are counted, and written as JSON lines when the runtime closes.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MiddlewareStack } from '@smithy/types';
import type { InstrumentableClient } from '../../app/parts.js';
import { ENV } from '../../env.js';
import type { LambdaFunctionName } from '../../lambda/functions.js';
import type { LocalSqsHandler } from '../sqs/message.js';
import { tableSpecs, type TableName } from '../../table-specs.js';
import type { RecordedAwsCall, RecordedTarget, RecordingHeader } from './recorded-call.js';

const invocations = new AsyncLocalStorage<string>();
/**
 * Whether a recorder exists in this process. Until one does, `invokedAs` does not enter the
 * AsyncLocalStorage: its first `run` turns on promise hooks for the whole process, which cost about
 * a millisecond of CPU per event on the live path (measured with the live-delivery bench).
 */
let recording = false;

/** How a recording names a function: its name in `src/lambda/functions.ts`, and its variant (`fanout:mention.created`, `delivery:urgent`, `channel:push`). */
export function principalOf(name: LambdaFunctionName, variant?: string): string {
  return variant === undefined ? name : `${name}:${variant}`;
}

/** The handler, run as `principal`: every SDK call it makes (awaited or not) is recorded as that function's. */
export function invokedAs<Args extends unknown[], Result>(principal: string, handler: (...args: Args) => Promise<Result>): (...args: Args) => Promise<Result> {
  return (...args) => (recording ? invocations.run(principal, () => handler(...args)) : handler(...args));
}

/** The function the current call is made for (undefined outside an invocation, or when nothing records). */
export function currentInvocation(): string | undefined {
  return recording ? invocations.getStore() : undefined;
}

type AttributeValue = { S?: string; N?: string; B?: unknown };
type Input = Record<string, unknown>;

const SERVICES: Record<string, string> = {
  DynamoDBClient: 'dynamodb',
  SQSClient: 'sqs',
  SNSClient: 'sns',
  SESv2Client: 'sesv2',
  PinpointSMSVoiceV2Client: 'sms-voice',
  SchedulerClient: 'scheduler',
  ApiGatewayManagementApiClient: 'apigatewaymanagementapi',
};

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const keyText = (value: unknown): string => {
  const attribute = value as AttributeValue | undefined;
  return attribute?.S ?? attribute?.N ?? JSON.stringify(value);
};

export interface AwsCallRecorderOptions {
  /** Where the recording file goes (created if missing). */
  dir: string;
  /** Names the runtime in its file (the test file that started it, `npm start`...). */
  label: string;
  /** The table of a local physical table name. */
  tableOf(physicalName: string): TableName | undefined;
}

export class AwsCallRecorder {
  private readonly calls = new Map<string, RecordedAwsCall>();
  private readonly startedAt = new Date().toISOString();
  private flushed = false;
  private readonly onExit = () => this.flush();

  constructor(private readonly options: AwsCallRecorderOptions) {
    recording = true;
    // A runtime a test never closes still leaves its recording.
    process.once('exit', this.onExit);
  }

  /** Adds the recording middleware to an SDK client: before the retries, so a retried call counts once. */
  instrument(client: InstrumentableClient): void {
    // Every service's stack takes a build-step middleware over its own input and output types; this one only reads the input.
    (client.middlewareStack as Pick<MiddlewareStack<object, object>, 'add'>).add(
      (next, context) => async (args) => {
        const principal = invocations.getStore();
        if (principal !== undefined) {
          const service = SERVICES[String(context.clientName)] ?? String(context.clientName);
          const operation = String(context.commandName).replace(/Command$/, '');
          for (const target of this.targetsOf(service, operation, args.input as Input)) this.record({ principal, service, operation, via: 'sdk', target });
        }
        return next(args);
      },
      { step: 'build', name: 'awsCallRecorder', override: true },
    );
  }

  /**
   * The consumer of `queue` as the Lambda event source mapping runs it with the function's role:
   * ReceiveMessage for each batch, DeleteMessage when some of its records succeeded, and the
   * GetQueueAttributes the mapping makes when it is created.
   */
  consumer(principal: string, queue: string, handler: LocalSqsHandler): LocalSqsHandler {
    const target: RecordedTarget = { kind: 'queue', queue };
    this.record({ principal, service: 'sqs', operation: 'GetQueueAttributes', via: 'event-source-mapping', target });
    return async (event, context) => {
      this.record({ principal, service: 'sqs', operation: 'ReceiveMessage', via: 'event-source-mapping', target });
      const response = await invokedAs(principal, handler)(event, context);
      if ((response?.batchItemFailures?.length ?? 0) < event.Records.length) this.record({ principal, service: 'sqs', operation: 'DeleteMessage', via: 'event-source-mapping', target });
      return response;
    };
  }

  /** Scheduler delivering a fired schedule to its target queue with the schedule's role. */
  scheduleDelivered(roleArn: string, queue: string): void {
    this.record({ principal: `role:${roleArn}`, service: 'sqs', operation: 'SendMessage', via: 'scheduler', target: { kind: 'queue', queue } });
  }

  /** Writes the recording (header + one line per distinct call); later calls are dropped. */
  flush(): void {
    if (this.flushed) return;
    this.flushed = true;
    process.removeListener('exit', this.onExit);
    const header: RecordingHeader = { recording: 1, label: this.options.label, pid: process.pid, startedAt: this.startedAt };
    const name = `${this.options.label.replace(/[^A-Za-z0-9._-]+/g, '_')}--${process.pid}--${this.startedAt.replace(/[:.]/g, '')}--${Math.random().toString(36).slice(2, 8)}.jsonl`;
    mkdirSync(this.options.dir, { recursive: true });
    writeFileSync(join(this.options.dir, name), [header, ...this.calls.values()].map((line) => JSON.stringify(line)).join('\n') + '\n');
  }

  private record(call: Omit<RecordedAwsCall, 'count'>): void {
    if (this.flushed) return;
    const key = JSON.stringify(call);
    const existing = this.calls.get(key);
    if (existing) existing.count += 1;
    else this.calls.set(key, { ...call, count: 1 });
  }

  private targetsOf(service: string, operation: string, input: Input): RecordedTarget[] {
    switch (service) {
      case 'dynamodb':
        return this.tableTargets(operation, input);
      case 'sqs': {
        const queue = text(input.QueueUrl)?.split('/').pop() ?? text(input.QueueName);
        return [queue ? { kind: 'queue', queue } : { kind: 'unknown', detail: `sqs ${operation} without a queue` }];
      }
      case 'sns': {
        const arn = text(input.PlatformApplicationArn) ?? text(input.EndpointArn) ?? text(input.TargetArn) ?? text(input.TopicArn);
        return [arn ? { kind: 'sns', arn } : { kind: 'unknown', detail: `sns ${operation} without an ARN` }];
      }
      case 'sesv2': {
        // Without an identity ARN, SES authorizes the From address's domain identity.
        const from = text(input.FromEmailAddress) ?? '';
        const identity = text(input.FromEmailAddressIdentityArn) ?? /@([^>\s]+)>?\s*$/.exec(from)?.[1] ?? from;
        const configurationSet = text(input.ConfigurationSetName);
        return [{ kind: 'ses', identity, ...(configurationSet ? { configurationSet } : {}) }];
      }
      case 'sms-voice': {
        const optOutList = text(input.OptOutListName);
        if (optOutList) return [{ kind: 'smsOptOutList', optOutList }];
        const originationIdentity = text(input.OriginationIdentity);
        const configurationSet = text(input.ConfigurationSetName);
        return [originationIdentity ? { kind: 'sms', originationIdentity, ...(configurationSet ? { configurationSet } : {}) } : { kind: 'unknown', detail: `sms-voice ${operation} without an origination identity` }];
      }
      case 'scheduler': {
        const target = (input.Target ?? {}) as Input;
        const roleArn = text(target.RoleArn);
        const targetArn = text(target.Arn);
        return [{ kind: 'schedule', group: text(input.GroupName) ?? 'default', name: text(input.Name) ?? '*', ...(roleArn ? { roleArn } : {}), ...(targetArn ? { targetArn } : {}) }];
      }
      case 'apigatewaymanagementapi': {
        const method = ({ PostToConnection: 'POST', GetConnection: 'GET', DeleteConnection: 'DELETE' } as const)[operation as 'PostToConnection'];
        return [method ? { kind: 'connection', method, connectionId: text(input.ConnectionId) ?? '' } : { kind: 'unknown', detail: `@connections ${operation}` }];
      }
      default:
        return [{ kind: 'unknown', detail: `${service} ${operation}` }];
    }
  }

  /** One target per table, with the distinct partition keys of the items or the query. */
  private tableTargets(operation: string, input: Input): RecordedTarget[] {
    const single = (physical: unknown, keys: unknown[], index?: unknown): RecordedTarget => {
      const table = this.options.tableOf(String(physical));
      if (!table) return { kind: 'unknown', detail: `dynamodb ${operation} on table ${String(physical)}` };
      const partitionKey = tableSpecs[table].partitionKey.name;
      const values = keys.map((key) => keyText((key as Record<string, unknown> | undefined)?.[partitionKey]));
      return { kind: 'table', table, partitionKeys: [...new Set(values)].sort(), ...(typeof index === 'string' ? { index } : {}) };
    };
    switch (operation) {
      case 'GetItem':
      case 'DeleteItem':
      case 'UpdateItem':
        return [single(input.TableName, [input.Key])];
      case 'PutItem':
        return [single(input.TableName, [input.Item])];
      case 'Query':
        return [this.queryTarget(input, single)];
      case 'Scan':
        return [single(input.TableName, [], input.IndexName)];
      case 'BatchGetItem':
        return Object.entries((input.RequestItems ?? {}) as Record<string, { Keys?: unknown[] }>).map(([table, request]) => single(table, request.Keys ?? []));
      case 'BatchWriteItem':
        return Object.entries((input.RequestItems ?? {}) as Record<string, { PutRequest?: { Item: unknown }; DeleteRequest?: { Key: unknown } }[]>).map(([table, requests]) =>
          single(table, requests.map((request) => request.PutRequest?.Item ?? request.DeleteRequest?.Key)),
        );
      default:
        return [{ kind: 'unknown', detail: `dynamodb ${operation}` }];
    }
  }

  /** The partition key of a Query: the `<key> = :value` clause of its key condition. */
  private queryTarget(input: Input, single: (physical: unknown, keys: unknown[], index?: unknown) => RecordedTarget): RecordedTarget {
    const table = this.options.tableOf(String(input.TableName));
    if (!table) return { kind: 'unknown', detail: `dynamodb Query on table ${String(input.TableName)}` };
    const names = (input.ExpressionAttributeNames ?? {}) as Record<string, string>;
    const values = (input.ExpressionAttributeValues ?? {}) as Record<string, unknown>;
    const partitionKey = tableSpecs[table].partitionKey.name;
    for (const clause of String(input.KeyConditionExpression ?? '').split(/\s+AND\s+/i)) {
      const match = /^\s*\(?\s*(#?[A-Za-z0-9_]+)\s*=\s*(:[A-Za-z0-9_]+)\s*\)?\s*$/.exec(clause);
      if (match && (names[match[1]!] ?? match[1]) === partitionKey) return single(input.TableName, [{ [partitionKey]: values[match[2]!] }], input.IndexName);
      // A sparse index (byUser, byAuthor) has its own partition key: its equality clause names it.
      if (match && input.IndexName !== undefined) return single(input.TableName, [{ [partitionKey]: values[match[2]!] }], input.IndexName);
    }
    return { kind: 'unknown', detail: `dynamodb Query without a partition key condition: ${String(input.KeyConditionExpression)}` };
  }
}

/** The recorder of `dir` for a runtime, or undefined when recording is off. */
export function awsCallRecorderFor(dir: string | undefined, tables: Record<TableName, string>, label?: string): AwsCallRecorder | undefined {
  if (!dir) return undefined;
  const byPhysical = new Map(Object.entries(tables).map(([table, physical]) => [physical, table as TableName]));
  return new AwsCallRecorder({ dir, label: label ?? process.env[ENV.RECORD_AWS_CALLS_LABEL] ?? 'runtime', tableOf: (physical) => byPhysical.get(physical) });
}

/** The consumer of a local queue, run as `principal` (and recorded as the event source mapping polls for it, when recording). */
export function queueConsumer(recorder: AwsCallRecorder | undefined, principal: string, queue: string, handler: LocalSqsHandler): LocalSqsHandler {
  return recorder ? recorder.consumer(principal, queue, handler) : invokedAs(principal, handler);
}
