/**
 * A per-stage timeline of the live path for the live-delivery bench: an SDK middleware on every
 * client the local runtime's functions use notes when each AWS call starts and ends, named by the
 * stage it serves (arrival stamp, inbox write, job enqueue, delivery lookup, claim, post...). The
 * bench publishes one urgent event at a time, so when nothing else runs every call between a
 * PutEvents and the socket message belongs to that event; under a background load, the calls are
 * attributed by what their inputs name (the bench's test), so each span keeps its input. The stage
 * of a call is read from its operation, table and key kind, never from the handlers (they carry no
 * bench hook).
 */
import type { InstrumentableClient } from '../src/app/parts.js';
import type { TableName } from '../src/table-specs.js';

export interface Span {
  stage: string;
  startMs: number;
  /** NaN while the call runs. */
  endMs: number;
  /** The call's input (kept by reference: read only to attribute the call under load, after the event). */
  input?: unknown;
}

type Input = Record<string, unknown>;
type Key = Record<string, unknown> | undefined;

const pkOf = (key: Key): string => (typeof key?.pk === 'string' ? key.pk : typeof key?.id === 'string' ? key.id : '');

function firstKey(input: Input): Key {
  if (input.Item) return input.Item as Key;
  if (input.Key) return input.Key as Key;
  const requests = input.RequestItems as Record<string, Array<Record<string, unknown>> | { Keys?: Key[] }> | undefined;
  if (!requests) return undefined;
  const first = Object.values(requests)[0];
  if (Array.isArray(first)) {
    const request = first[0] as { PutRequest?: { Item: Key }; DeleteRequest?: { Key: Key } } | undefined;
    return request?.PutRequest?.Item ?? request?.DeleteRequest?.Key;
  }
  return first?.Keys?.[0];
}

function tableOf(input: Input): string | undefined {
  if (typeof input.TableName === 'string') return input.TableName;
  const requests = input.RequestItems as Record<string, unknown> | undefined;
  return requests ? Object.keys(requests)[0] : undefined;
}

/** A key with its ids left out: the literal upper-case segments (`T#…#ARRIVAL#…` -> `T#ARRIVAL`). */
const shapeOf = (pk: string): string => pk.split('#').filter((segment) => /^[A-Z_]{1,12}$/.test(segment)).join('#');

/** The stage a DynamoDB call serves, from its table and key kind. */
function dynamoStage(operation: string, table: TableName | undefined, pk: string): string {
  if (table === 'idempotency') {
    if (pk.includes('#ARRIVAL#')) return 'arrival stamp';
    if (pk.includes('#TRACE') || pk.includes('TRACE#')) return 'trace write';
    if (pk.startsWith('DLV#')) return 'claim';
    if (pk.includes('#ERASED')) return 'erasure check';
    if (/#RATE#\d+$/.test(pk)) return 'rate limit';
    // Powertools idempotency records (`<function>#<hash>`): INPROGRESS before the work, COMPLETED after.
    if (operation === 'PutItem' && shapeOf(pk) === '') return 'idempotency record';
    if (operation === 'UpdateItem' && shapeOf(pk) === '') return 'idempotency completed';
    return `idempotency ${operation} ${shapeOf(pk)}`;
  }
  if (table === 'inbox') {
    if (pk.endsWith('#TRACE')) return 'trace write';
    return operation === 'BatchWriteItem' ? 'inbox write' : `inbox ${operation}`;
  }
  if (table === 'connections') return operation === 'BatchGetItem' || operation === 'Query' ? 'delivery lookup' : `connections ${operation}`;
  return `${table ?? 'unknown'} ${operation}`;
}

export class StageTimeline {
  private spans: Span[] = [];
  private readonly tableByPhysical: Map<string, TableName>;

  constructor(tables: Record<TableName, string>) {
    this.tableByPhysical = new Map(Object.entries(tables).map(([name, physical]) => [physical, name as TableName]));
  }

  /** Starts a new event's timeline (returns the spans of the previous one; a call still running keeps a NaN end). */
  take(): Span[] {
    const spans = this.spans;
    this.spans = [];
    return spans;
  }

  /** Notes a span measured outside the SDK (the PutEvents call, the wait for the socket). */
  note(stage: string, startMs: number, endMs: number): void {
    this.spans.push({ stage, startMs, endMs });
  }

  instrument = (client: InstrumentableClient): void => {
    (client.middlewareStack as { add(middleware: unknown, options: unknown): void }).add(
      (next: (args: { input: unknown }) => Promise<unknown>, context: { clientName?: string; commandName?: string }) => async (args: { input: unknown }) => {
        // Noted when it starts (a call can outlast the event's window: a send answered after its group commit).
        const input = (args.input ?? {}) as Input;
        const span: Span = { stage: this.stageOf(String(context.clientName), String(context.commandName).replace(/Command$/, ''), input), startMs: performance.now(), endMs: Number.NaN, input };
        this.spans.push(span);
        try {
          return await next(args);
        } finally {
          span.endMs = performance.now();
        }
      },
      { step: 'initialize', name: 'benchStageTimeline', priority: 'high', override: true },
    );
  };

  private stageOf(client: string, operation: string, input: Input): string {
    switch (client) {
      case 'DynamoDBClient': {
        const physical = tableOf(input);
        return dynamoStage(operation, physical ? this.tableByPhysical.get(physical) : undefined, pkOf(firstKey(input)));
      }
      case 'SQSClient':
        return String(input.QueueUrl ?? '').includes('Urgent') ? 'job enqueue' : `sqs ${operation} ${String(input.QueueUrl ?? '').split('/').pop()}`;
      case 'ApiGatewayManagementApiClient':
        return 'post';
      default:
        return `${client} ${operation}`;
    }
  }
}
