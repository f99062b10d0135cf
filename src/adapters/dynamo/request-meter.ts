/**
 * SDK middleware that counts DynamoDB requests (every HTTP attempt, retries included) and the
 * capacity units DynamoDB reports. These counts are exact and are the project's main cost figures.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

interface CapacityEntry {
  CapacityUnits?: number;
  ReadCapacityUnits?: number;
  WriteCapacityUnits?: number;
}

export interface MeterTotals {
  requests: number;
  readCapacityUnits: number;
  writeCapacityUnits: number;
  /** Items the reads returned or examined: GetItem's item, BatchGetItem's responses, a Query's or Scan's ScannedCount. */
  itemsRead: number;
  byCommand: Record<string, number>;
}

const WRITE_COMMANDS = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'BatchWriteItemCommand', 'TransactWriteItemsCommand']);

export class RequestMeter {
  private totals: MeterTotals = RequestMeter.empty();

  private static empty(): MeterTotals {
    return { requests: 0, readCapacityUnits: 0, writeCapacityUnits: 0, itemsRead: 0, byCommand: {} };
  }

  reset(): void {
    this.totals = RequestMeter.empty();
  }

  snapshot(): MeterTotals {
    return { ...this.totals, byCommand: { ...this.totals.byCommand } };
  }

  /** Attaches to a client (document or base); both share one middleware stack. */
  attach(client: DynamoDBClient | DynamoDBDocumentClient): void {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as { ReturnConsumedCapacity?: string };
        if (input.ReturnConsumedCapacity === undefined) input.ReturnConsumedCapacity = 'TOTAL';
        const result = await next(args);
        const commandName = context.commandName ?? 'unknown';
        const output = result.output as { ConsumedCapacity?: CapacityEntry | CapacityEntry[]; Item?: unknown; Responses?: Record<string, unknown[]>; ScannedCount?: number };
        this.totals.itemsRead += itemsReadBy(commandName, output);
        const entries = Array.isArray(output.ConsumedCapacity) ? output.ConsumedCapacity : output.ConsumedCapacity ? [output.ConsumedCapacity] : [];
        for (const entry of entries) {
          const units = entry.CapacityUnits ?? 0;
          if (entry.WriteCapacityUnits !== undefined || WRITE_COMMANDS.has(commandName)) this.totals.writeCapacityUnits += entry.WriteCapacityUnits ?? units;
          else this.totals.readCapacityUnits += entry.ReadCapacityUnits ?? units;
        }
        return result;
      },
      { step: 'initialize', name: 'consumedCapacityMeter', override: true },
    );
    client.middlewareStack.add(
      (next, context) => async (args) => {
        this.totals.requests += 1;
        const commandName = context.commandName ?? 'unknown';
        this.totals.byCommand[commandName] = (this.totals.byCommand[commandName] ?? 0) + 1;
        return next(args);
      },
      // finalizeRequest runs once per HTTP attempt (after the retry middleware), so retries count.
      { step: 'finalizeRequest', priority: 'low', name: 'requestCountMeter', override: true },
    );
  }
}

/** Items one read returned or examined (0 for a write). */
function itemsReadBy(commandName: string, output: { Item?: unknown; Responses?: Record<string, unknown[]>; ScannedCount?: number }): number {
  if (commandName === 'GetItemCommand' || commandName === 'GetCommand') return output.Item === undefined ? 0 : 1;
  if (commandName === 'BatchGetItemCommand' || commandName === 'BatchGetCommand') return Object.values(output.Responses ?? {}).reduce((sum, items) => sum + items.length, 0);
  return output.ScannedCount ?? 0;
}
