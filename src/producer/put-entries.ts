/**
 * PutEvents as a producer must send it: calls of at most 10 entries, and the entries EventBridge
 * answers with a retriable per-entry error (`ThrottlingException`, `InternalFailure`: AWS's PutEvents
 * quota, or the local runtime's intake back-pressure) sent again after an exponential backoff with
 * full jitter. Any other per-entry error, or a retriable one past `maxAttempts`, throws.
 */
import { PutEventsCommand, type EventBridgeClient, type PutEventsRequestEntry, type PutEventsResultEntry } from '@aws-sdk/client-eventbridge';

const RETRIABLE_ENTRY_ERRORS = new Set(['ThrottlingException', 'InternalFailure', 'InternalException']);
const ENTRIES_PER_CALL = 10;

export interface PutEntriesOptions {
  /** Attempts per call of 10, the first included. Default 10. */
  maxAttempts?: number;
  /** The wait before attempt `attempt` (1 = the first resend). Default: full jitter over 100 ms doubling to 1.6 s. */
  delayMs?: (attempt: number) => number;
  /** Told how many entries of a call are resent. */
  onRetry?: (entries: number) => void;
}

export class PutEntriesError extends Error {
  override readonly name = 'PutEntriesError';
}

const fullJitter = (attempt: number) => Math.random() * Math.min(1_600, 100 * 2 ** (attempt - 1));

/** Sends every entry; answers each entry's result (its `EventId`), in the order given. */
export async function putEntries(client: Pick<EventBridgeClient, 'send'>, entries: readonly PutEventsRequestEntry[], options: PutEntriesOptions = {}): Promise<PutEventsResultEntry[]> {
  const maxAttempts = options.maxAttempts ?? 10;
  const delayMs = options.delayMs ?? fullJitter;
  const results: PutEventsResultEntry[] = [];
  for (let start = 0; start < entries.length; start += ENTRIES_PER_CALL) {
    let pending = entries.slice(start, start + ENTRIES_PER_CALL).map((entry, offset) => ({ entry, at: start + offset }));
    for (let attempt = 1; pending.length > 0; attempt += 1) {
      const output = await client.send(new PutEventsCommand({ Entries: pending.map(({ entry }) => entry) }));
      const retry: typeof pending = [];
      pending.forEach((sent, index) => {
        const result = output.Entries?.[index] ?? { ErrorCode: 'InternalFailure', ErrorMessage: 'no result for this entry' };
        if (result.ErrorCode === undefined) results[sent.at] = result;
        else if (!RETRIABLE_ENTRY_ERRORS.has(result.ErrorCode) || attempt >= maxAttempts) throw new PutEntriesError(`PutEvents refused entry ${sent.at}${attempt > 1 ? ` after ${attempt} attempts` : ''}: ${result.ErrorCode} ${result.ErrorMessage ?? ''}`.trim());
        else retry.push(sent);
      });
      pending = retry;
      if (pending.length === 0) break;
      options.onRetry?.(pending.length);
      await new Promise((resolve) => setTimeout(resolve, delayMs(attempt)));
    }
  }
  return results;
}
