/**
 * A document client whose BatchWriteItem and BatchGetItem calls, made by concurrent callers in the
 * same turn of the event loop, go out as shared requests (adapters/microbatch.ts): the ten records
 * of one SQS batch writing two inbox items each make one BatchWriteItem, not ten. Each caller gets
 * exactly its own answer: its own unprocessed items or keys (batch.ts retries them), the items it
 * asked for, or the error of a shared request that failed as a whole (each of its callers fails).
 *
 * A shared request never holds one key twice (DynamoDB rejects that): a second write of a key goes
 * in a later request, sent after the first one's answer; a key read by several callers is read
 * once. A call the coalescer cannot share as it stands goes out unchanged: a table whose key names
 * it was not told, a projection or capacity option, a call DynamoDB would reject (a key twice, over
 * the limit), or a call with send options.
 */
import { BatchGetCommand, BatchWriteCommand, type BatchGetCommandInput, type BatchGetCommandOutput, type BatchWriteCommandInput, type BatchWriteCommandOutput, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { chunk } from './batch.js';
import { asError, loadAll, microbatch, type ScopeOf } from '../microbatch.js';

const BATCH_WRITE_LIMIT = 25;
const BATCH_GET_LIMIT = 100;

type Item = Record<string, unknown>;
type WriteRequest = NonNullable<BatchWriteCommandInput['RequestItems']>[string][number];

/** The key attribute names of a table (`pk`, `sk`; `id`), or undefined: its calls are not shared. */
export type KeyNamesOf = (tableName: string) => readonly string[] | undefined;

interface WriteLoad {
  table: string;
  request: WriteRequest;
  /** Table and key: what one request must not hold twice. */
  slot: string;
}
type WriteAnswer = 'written' | 'unprocessed';

interface GetLoad {
  table: string;
  key: Item;
  consistent: boolean;
  /** Table, consistency and key: one read answers every load of a slot. */
  slot: string;
}
interface GetAnswer {
  item?: Item;
  unprocessed?: true;
}

/** The key of `item` in `table` as a string, or undefined if a key attribute is missing. */
function keyString(keyNamesOf: KeyNamesOf, table: string, item: Item | undefined): string | undefined {
  const names = keyNamesOf(table);
  if (!names || !item) return undefined;
  const values = names.map((name) => item[name]);
  return values.some((value) => value === undefined) ? undefined : JSON.stringify([table, ...values]);
}

function writeSlot(keyNamesOf: KeyNamesOf, table: string, request: WriteRequest): string | undefined {
  if (request.PutRequest && request.DeleteRequest) return undefined;
  return keyString(keyNamesOf, table, request.PutRequest?.Item ?? request.DeleteRequest?.Key);
}

const hasOnly = (input: object, allowed: readonly string[]) => Object.entries(input).every(([name, value]) => value === undefined || allowed.includes(name));
const allDistinct = (slots: readonly string[]) => new Set(slots).size === slots.length;

/** The loads of a BatchWrite input the coalescer can share, or undefined (the call goes out unchanged). */
function writeLoadsOf(keyNamesOf: KeyNamesOf, input: BatchWriteCommandInput): WriteLoad[] | undefined {
  if (!hasOnly(input, ['RequestItems']) || !input.RequestItems) return undefined;
  const loads: WriteLoad[] = [];
  for (const [table, requests] of Object.entries(input.RequestItems)) {
    for (const request of requests) {
      const slot = writeSlot(keyNamesOf, table, request);
      if (slot === undefined) return undefined;
      loads.push({ table, request, slot });
    }
  }
  return loads.length > 0 && loads.length <= BATCH_WRITE_LIMIT && allDistinct(loads.map((load) => load.slot)) ? loads : undefined;
}

function getLoadsOf(keyNamesOf: KeyNamesOf, input: BatchGetCommandInput): GetLoad[] | undefined {
  if (!hasOnly(input, ['RequestItems']) || !input.RequestItems) return undefined;
  const loads: GetLoad[] = [];
  for (const [table, entry] of Object.entries(input.RequestItems)) {
    if (!hasOnly(entry, ['Keys', 'ConsistentRead']) || !entry.Keys) return undefined;
    const consistent = entry.ConsistentRead === true;
    for (const key of entry.Keys) {
      const slot = keyString(keyNamesOf, table, key);
      if (slot === undefined) return undefined;
      loads.push({ table, key, consistent, slot: `${consistent ? 'C' : 'E'}${slot}` });
    }
  }
  return loads.length > 0 && loads.length <= BATCH_GET_LIMIT && allDistinct(loads.map((load) => load.slot)) ? loads : undefined;
}

/** Rounds of writes: the n-th write of a key goes in round n, so no request holds a key twice and a later write of a key is sent after the earlier one's answer. */
function writeRounds(loads: readonly WriteLoad[]): number[][] {
  const seen = new Map<string, number>();
  const rounds: number[][] = [];
  loads.forEach((load, index) => {
    const round = seen.get(load.slot) ?? 0;
    seen.set(load.slot, round + 1);
    (rounds[round] ??= []).push(index);
  });
  return rounds;
}

/** `scopeOf`: whose calls may share a request (adapters/microbatch.ts). */
export function coalescingDocumentClient(client: DynamoDBDocumentClient, keyNamesOf: KeyNamesOf, scopeOf?: ScopeOf): DynamoDBDocumentClient {
  const writes = microbatch<WriteLoad, WriteAnswer>(async (loads) => {
    const answers: (WriteAnswer | Error)[] = new Array<WriteAnswer | Error>(loads.length);
    for (const round of writeRounds(loads)) {
      await Promise.all(
        chunk(round, BATCH_WRITE_LIMIT).map(async (indices) => {
          const requestItems: Record<string, WriteRequest[]> = {};
          for (const index of indices) (requestItems[loads[index]!.table] ??= []).push(loads[index]!.request);
          try {
            const output = await client.send(new BatchWriteCommand({ RequestItems: requestItems }));
            const unprocessed = new Set(Object.entries(output.UnprocessedItems ?? {}).flatMap(([table, requests]) => requests.map((request) => writeSlot(keyNamesOf, table, request))));
            for (const index of indices) answers[index] = unprocessed.has(loads[index]!.slot) ? 'unprocessed' : 'written';
          } catch (error) {
            for (const index of indices) answers[index] = asError(error);
          }
        }),
      );
    }
    return answers;
  }, scopeOf);

  const reads = microbatch<GetLoad, GetAnswer>(async (loads) => {
    // One read per slot, whoever asked for it.
    const bySlot = new Map<string, number[]>();
    loads.forEach((load, index) => bySlot.set(load.slot, [...(bySlot.get(load.slot) ?? []), index]));
    // Requests of at most 100 keys, a table once per request (its consistency is per table).
    const requests: { items: Record<string, { Keys: Item[]; ConsistentRead?: boolean }>; size: number }[] = [];
    for (const [first] of bySlot.values()) {
      const { table, key, consistent } = loads[first!]!;
      let request = requests.at(-1);
      const entry = request?.items[table];
      if (!request || request.size === BATCH_GET_LIMIT || (entry && (entry.ConsistentRead === true) !== consistent)) {
        request = { items: {}, size: 0 };
        requests.push(request);
      }
      (request.items[table] ??= { Keys: [], ...(consistent ? { ConsistentRead: true } : {}) }).Keys.push(key);
      request.size += 1;
    }
    const answers: (GetAnswer | Error)[] = loads.map(() => ({}));
    const answerSlot = (slot: string, answer: (first: boolean) => GetAnswer | Error) => (bySlot.get(slot) ?? []).forEach((index, position) => (answers[index] = answer(position === 0)));
    await Promise.all(
      requests.map(async ({ items }) => {
        const slotOf = (table: string, item: Item) => `${items[table]?.ConsistentRead ? 'C' : 'E'}${keyString(keyNamesOf, table, item) ?? ''}`;
        try {
          const output = await client.send(new BatchGetCommand({ RequestItems: items }));
          for (const [table, found] of Object.entries(output.Responses ?? {})) {
            // The first caller of a slot gets the item, the others a copy (no caller sees another's mutation).
            for (const item of found) answerSlot(slotOf(table, item), (first) => ({ item: first ? item : structuredClone(item) }));
          }
          for (const [table, unprocessed] of Object.entries(output.UnprocessedKeys ?? {})) {
            for (const key of unprocessed.Keys ?? []) answerSlot(slotOf(table, key), () => ({ unprocessed: true }));
          }
        } catch (error) {
          for (const table of Object.keys(items)) for (const key of items[table]!.Keys) answerSlot(slotOf(table, key), () => asError(error));
        }
      }),
    );
    return answers;
  }, scopeOf);

  const sendWrite = async (loads: readonly WriteLoad[]): Promise<BatchWriteCommandOutput> => {
    const answers = await loadAll(writes, loads);
    const unprocessed: Record<string, WriteRequest[]> = {};
    loads.forEach((load, index) => answers[index] === 'unprocessed' && (unprocessed[load.table] ??= []).push(load.request));
    return { $metadata: {}, UnprocessedItems: unprocessed };
  };

  const sendGet = async (loads: readonly GetLoad[]): Promise<BatchGetCommandOutput> => {
    const answers = await loadAll(reads, loads);
    const responses: Record<string, Item[]> = {};
    const unprocessed: Record<string, { Keys: Item[]; ConsistentRead?: boolean }> = {};
    loads.forEach((load, index) => {
      const answer = answers[index]!;
      responses[load.table] ??= [];
      if (answer.item) responses[load.table]!.push(answer.item);
      if (answer.unprocessed) (unprocessed[load.table] ??= { Keys: [], ...(load.consistent ? { ConsistentRead: true } : {}) }).Keys.push(load.key);
    });
    return { $metadata: {}, Responses: responses, UnprocessedKeys: unprocessed };
  };

  const send = (command: unknown, ...rest: unknown[]): Promise<unknown> => {
    if (rest.length === 0 && command instanceof BatchWriteCommand) {
      const loads = writeLoadsOf(keyNamesOf, command.input);
      if (loads) return sendWrite(loads);
    }
    if (rest.length === 0 && command instanceof BatchGetCommand) {
      const loads = getLoadsOf(keyNamesOf, command.input);
      if (loads) return sendGet(loads);
    }
    return Reflect.apply(client.send, client, [command, ...rest]) as Promise<unknown>;
  };
  // Everything else (config, middleware stack, destroy) is the client's own.
  return Object.assign(Object.create(client) as DynamoDBDocumentClient, { send });
}
