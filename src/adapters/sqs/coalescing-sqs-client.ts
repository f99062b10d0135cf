/**
 * An SQS client whose SendMessageBatch calls to one queue, made by concurrent callers in the same
 * turn of the event loop, go out as shared requests (adapters/microbatch.ts): at most 10 entries
 * and 256 KiB each, entry ids renumbered per request and given back as each caller sent them.
 * Each caller gets exactly its own entries' outcomes (sqs-batch-sender.ts retries its failed
 * ones), or the error of a shared request that failed as a whole. A call the coalescer cannot
 * share as it stands goes out unchanged: a FIFO queue (its order is the caller's), entry options
 * beyond a body, delay and attributes, a call SQS would reject (ids twice, over the limits), or a
 * call with send options.
 */
import { SendMessageBatchCommand, type BatchResultErrorEntry, type SendMessageBatchCommandInput, type SendMessageBatchCommandOutput, type SendMessageBatchRequestEntry, type SendMessageBatchResultEntry, type SQSClient } from '@aws-sdk/client-sqs';
import { asError, loadAll, microbatch, type ScopeOf } from '../microbatch.js';

const SEND_BATCH_LIMIT = 10;
const SEND_BATCH_MAX_BYTES = 256 * 1024;
const ENTRY_FIELDS = ['Id', 'MessageBody', 'DelaySeconds', 'MessageAttributes'];

interface SendLoad {
  queueUrl: string;
  entry: SendMessageBatchRequestEntry;
  /** What the entry counts toward the 256 KiB (its attributes over-estimated as JSON). */
  bytes: number;
}
type SendAnswer = { sent: SendMessageBatchResultEntry } | { failed: BatchResultErrorEntry };

function sendLoadsOf(input: SendMessageBatchCommandInput): SendLoad[] | undefined {
  const { QueueUrl: queueUrl, Entries: entries } = input;
  if (Object.entries(input).some(([name, value]) => value !== undefined && name !== 'QueueUrl' && name !== 'Entries')) return undefined;
  if (!queueUrl || queueUrl.endsWith('.fifo') || !entries || entries.length === 0 || entries.length > SEND_BATCH_LIMIT) return undefined;
  if (new Set(entries.map((entry) => entry.Id)).size !== entries.length) return undefined;
  if (entries.some((entry) => Object.entries(entry).some(([name, value]) => value !== undefined && !ENTRY_FIELDS.includes(name)))) return undefined;
  const loads = entries.map((entry) => ({ queueUrl, entry, bytes: Buffer.byteLength(entry.MessageBody ?? '') + (entry.MessageAttributes ? Buffer.byteLength(JSON.stringify(entry.MessageAttributes)) : 0) }));
  return loads.reduce((sum, load) => sum + load.bytes, 0) <= SEND_BATCH_MAX_BYTES ? loads : undefined;
}

/** Requests per queue, in the order asked: at most 10 entries and 256 KiB each. */
function planRequests(loads: readonly SendLoad[]): { queueUrl: string; indices: number[] }[] {
  const open = new Map<string, { queueUrl: string; indices: number[]; bytes: number }>();
  const requests: { queueUrl: string; indices: number[]; bytes: number }[] = [];
  loads.forEach((load, index) => {
    let request = open.get(load.queueUrl);
    if (!request || request.indices.length === SEND_BATCH_LIMIT || request.bytes + load.bytes > SEND_BATCH_MAX_BYTES) {
      request = { queueUrl: load.queueUrl, indices: [], bytes: 0 };
      open.set(load.queueUrl, request);
      requests.push(request);
    }
    request.indices.push(index);
    request.bytes += load.bytes;
  });
  return requests;
}

/** `scopeOf`: whose calls may share a request (adapters/microbatch.ts). */
export function coalescingSqsClient(client: SQSClient, scopeOf?: ScopeOf): SQSClient {
  const sends = microbatch<SendLoad, SendAnswer>(async (loads) => {
    const answers: (SendAnswer | Error)[] = new Array<SendAnswer | Error>(loads.length);
    await Promise.all(
      planRequests(loads).map(async ({ queueUrl, indices }) => {
        // Ids unique within the request: the position in it; each answer gets its caller's id back.
        const entries = indices.map((index, position) => ({ ...loads[index]!.entry, Id: String(position) }));
        try {
          const output = await client.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries }));
          const callerId = (position: string | undefined) => loads[indices[Number(position)]!]?.entry.Id;
          for (const sent of output.Successful ?? []) answers[indices[Number(sent.Id)]!] = { sent: { ...sent, Id: callerId(sent.Id) } };
          for (const failed of output.Failed ?? []) answers[indices[Number(failed.Id)]!] = { failed: { ...failed, Id: callerId(failed.Id) } };
          // An entry SQS answered neither way is reported failed (retryable), never taken as sent.
          indices.forEach((index) => (answers[index] ??= { failed: { Id: loads[index]!.entry.Id, Code: 'NoAnswer', SenderFault: false, Message: 'SendMessageBatch answered nothing for this entry' } }));
        } catch (error) {
          for (const index of indices) answers[index] = asError(error);
        }
      }),
    );
    return answers;
  }, scopeOf);

  const sendBatch = async (loads: readonly SendLoad[]): Promise<SendMessageBatchCommandOutput> => {
    const answers = await loadAll(sends, loads);
    return {
      $metadata: {},
      Successful: answers.flatMap((answer) => ('sent' in answer ? [answer.sent] : [])),
      Failed: answers.flatMap((answer) => ('failed' in answer ? [answer.failed] : [])),
    };
  };

  const send = (command: unknown, ...rest: unknown[]): Promise<unknown> => {
    if (rest.length === 0 && command instanceof SendMessageBatchCommand) {
      const loads = sendLoadsOf(command.input);
      if (loads) return sendBatch(loads);
    }
    return Reflect.apply(client.send, client, [command, ...rest]) as Promise<unknown>;
  };
  // Everything else (config, middleware stack, destroy) is the client's own.
  return Object.assign(Object.create(client) as SQSClient, { send });
}
