/**
 * The SQS JSON wire protocol (AWS JSON 1.0): `POST /` with `X-Amz-Target: AmazonSQS.<Action>`, as
 * `@aws-sdk/client-sqs` sends it, so the real SQS adapters are the code path locally too.
 *
 * Only the runtime's own functions call it: a caller must be on this machine, name it by a
 * loopback name or the listen host, and sign with SigV4 using the credentials generated for this
 * DATA_DIR (credentials.ts); anything else gets a 403 like AWS (`InvalidClientTokenId`,
 * `SignatureDoesNotMatch`, ...). Unknown actions (including `Object.prototype` names) are a 400
 * `InvalidAction`, never a 500.
 */
import type { LocalRequest, LocalResponse, LocalRoute } from '../http/router.js';
import { isCallerOnThisMachine } from '../http/router.js';
import type { LocalSqsCredentials } from './credentials.js';
import type { LocalQueueRegistry } from './queue-registry.js';
import { QueueClosedError, QueueDoesNotExistError } from './queue-store.js';
import { verifySigV4 } from './sigv4.js';

export interface SqsRouteOptions {
  /** Required SigV4 signer credentials; without them (in-process tests only) requests are not signature-checked. */
  credentials?: LocalSqsCredentials;
  /** The host the server listens on (a caller may name it besides the loopback names). Default 127.0.0.1. */
  serverHost?: string;
}

const SQS_JSON = { 'content-type': 'application/x-amz-json-1.0' };
/** SQS's largest VisibilityTimeout (12 hours), seconds. */
const MAX_VISIBILITY_TIMEOUT_S = 43_200;

function sqsError(status: number, type: string, message: string, fault: 'Sender' | 'Receiver' = 'Sender'): LocalResponse {
  return { status, headers: { ...SQS_JSON, 'x-amzn-query-error': `${type};${fault}` }, body: JSON.stringify({ __type: `com.amazonaws.sqs#${type}`, message }) };
}

class InvalidParameterError extends Error {
  override readonly name = 'InvalidParameterError';
  constructor(
    message: string,
    readonly type = 'InvalidParameterValue',
  ) {
    super(message);
  }
}

type Input = Record<string, unknown>;
type SqsAction = (queues: LocalQueueRegistry, input: Input) => unknown;

const isObject = (value: unknown): value is Input => typeof value === 'object' && value !== null && !Array.isArray(value);

function batchEntries(input: Input): Input[] {
  const entries = Array.isArray(input.Entries) ? input.Entries : [];
  if (entries.length === 0) throw new InvalidParameterError('EmptyBatchRequest', 'AWS.SimpleQueueService.EmptyBatchRequest');
  if (entries.length > 10) throw new InvalidParameterError('TooManyEntriesInBatchRequest', 'AWS.SimpleQueueService.TooManyEntriesInBatchRequest');
  return entries.map((entry: unknown) => (isObject(entry) ? entry : {}));
}

/** SQS DelaySeconds: an integer from 0 to 900 (15 minutes); absent = 0 (the local queues have no queue-level delay). */
function delayMsOf(value: unknown): number {
  if (value === undefined) return 0;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > MAX_DELAY_S) throw new InvalidParameterError(`DelaySeconds must be an integer from 0 to ${MAX_DELAY_S}`);
  return value * 1000;
}
const MAX_DELAY_S = 900;

/** A Map, not an object literal: `AmazonSQS.toString` must not find Object.prototype.toString. */
const actions = new Map<string, SqsAction>([
  [
    'SendMessage',
    async (queues, input) => {
      if (typeof input.MessageBody !== 'string' || input.MessageBody === '') throw new InvalidParameterError('MessageBody is required');
      const [sent] = await queues.byUrl(input.QueueUrl).sendBatchDurable([input.MessageBody], [delayMsOf(input.DelaySeconds)]);
      return { MessageId: sent!.messageId, MD5OfMessageBody: sent!.md5OfBody };
    },
  ],
  [
    'SendMessageBatch',
    async (queues, input) => {
      const queue = queues.byUrl(input.QueueUrl);
      const entries = batchEntries(input);
      const valid: Array<{ Id: unknown; MessageBody: string; delayMs: number }> = [];
      const failed: unknown[] = [];
      for (const entry of entries) {
        let delayMs: number;
        try {
          delayMs = delayMsOf(entry.DelaySeconds);
        } catch (error) {
          failed.push({ Id: entry.Id, SenderFault: true, Code: 'InvalidParameterValue', Message: (error as Error).message });
          continue;
        }
        if (typeof entry.MessageBody === 'string' && entry.MessageBody !== '') valid.push({ Id: entry.Id, MessageBody: entry.MessageBody, delayMs });
        else failed.push({ Id: entry.Id, SenderFault: true, Code: 'InvalidParameterValue', Message: 'MessageBody is required' });
      }
      // One journal write for the whole batch on a durable queue, answered after the group commit's sync.
      const sent = valid.length > 0 ? await queue.sendBatchDurable(valid.map((entry) => entry.MessageBody), valid.map((entry) => entry.delayMs)) : [];
      const successful = valid.map((entry, i) => ({ Id: entry.Id, MessageId: sent[i]!.messageId, MD5OfMessageBody: sent[i]!.md5OfBody }));
      return { Successful: successful, Failed: failed };
    },
  ],
  [
    'ReceiveMessage',
    (queues, input) => {
      const queue = queues.byUrl(input.QueueUrl);
      const max = typeof input.MaxNumberOfMessages === 'number' ? Math.min(10, Math.max(1, Math.trunc(input.MaxNumberOfMessages))) : 1;
      let visibilityMs: number | undefined;
      if (input.VisibilityTimeout !== undefined) {
        if (typeof input.VisibilityTimeout !== 'number' || !Number.isInteger(input.VisibilityTimeout) || input.VisibilityTimeout < 0 || input.VisibilityTimeout > MAX_VISIBILITY_TIMEOUT_S) {
          throw new InvalidParameterError(`VisibilityTimeout must be an integer from 0 to ${MAX_VISIBILITY_TIMEOUT_S}`);
        }
        visibilityMs = input.VisibilityTimeout * 1000;
      }
      const messages = queue.receive(max, visibilityMs);
      return {
        Messages: messages.map((message) => ({
          MessageId: message.messageId,
          ReceiptHandle: message.receiptHandle,
          MD5OfBody: message.md5OfBody,
          Body: message.body,
          Attributes: { ApproximateReceiveCount: String(message.receiveCount), SentTimestamp: String(message.sentAt) },
        })),
      };
    },
  ],
  [
    'DeleteMessage',
    (queues, input) => {
      if (typeof input.ReceiptHandle !== 'string' || input.ReceiptHandle === '') throw new InvalidParameterError('ReceiptHandle is required', 'ReceiptHandleIsInvalid');
      queues.byUrl(input.QueueUrl).delete(input.ReceiptHandle);
      return {};
    },
  ],
  [
    'DeleteMessageBatch',
    (queues, input) => {
      const queue = queues.byUrl(input.QueueUrl);
      const successful: unknown[] = [];
      const failed: unknown[] = [];
      for (const entry of batchEntries(input)) {
        if (typeof entry.ReceiptHandle !== 'string' || entry.ReceiptHandle === '') {
          failed.push({ Id: entry.Id, SenderFault: true, Code: 'ReceiptHandleIsInvalid', Message: 'ReceiptHandle is required' });
          continue;
        }
        // Like SQS: a stale receipt handle of a message already deleted still succeeds.
        queue.delete(entry.ReceiptHandle);
        successful.push({ Id: entry.Id });
      }
      return { Successful: successful, Failed: failed };
    },
  ],
  ['GetQueueUrl', (queues, input) => ({ QueueUrl: queues.byQueueName(input.QueueName).url })],
  [
    'GetQueueAttributes',
    (queues, input) => {
      const queue = queues.byUrl(input.QueueUrl);
      const depth = queue.depth();
      return {
        Attributes: {
          QueueArn: queue.arn,
          ApproximateNumberOfMessages: String(depth.visible),
          ApproximateNumberOfMessagesNotVisible: String(depth.notVisible),
          ApproximateNumberOfMessagesDelayed: String(depth.delayed),
          VisibilityTimeout: String(Math.round(queue.visibilityTimeoutMs / 1000)),
        },
      };
    },
  ],
  [
    'PurgeQueue',
    (queues, input) => {
      queues.byUrl(input.QueueUrl).purge();
      return {};
    },
  ],
]);

/** `POST /` with `X-Amz-Target: AmazonSQS.<Action>` (AWS JSON 1.0), as `@aws-sdk/client-sqs` sends it. */
export function createSqsRoute(queues: LocalQueueRegistry, options: SqsRouteOptions = {}): LocalRoute {
  const serverHost = options.serverHost ?? '127.0.0.1';
  return {
    async handle(request: LocalRequest) {
      const target = request.headers['x-amz-target'];
      if (request.method !== 'POST' || typeof target !== 'string' || !target.startsWith('AmazonSQS.')) return undefined;
      if (!isCallerOnThisMachine(request, serverHost)) return sqsError(403, 'AccessDenied', 'the local SQS endpoint answers callers on this machine only');
      if (options.credentials) {
        const failure = await verifySigV4(request, options.credentials, 'sqs');
        if (failure) return sqsError(403, failure.code, failure.message);
      }
      const action = actions.get(target.slice('AmazonSQS.'.length));
      if (!action) return sqsError(400, 'InvalidAction', `${target} is not a valid action of the local SQS endpoint`);
      let input: unknown;
      try {
        input = JSON.parse(request.body.toString('utf8') || '{}');
      } catch {
        return sqsError(400, 'SerializationException', 'request body is not JSON');
      }
      if (!isObject(input)) return sqsError(400, 'SerializationException', 'request body must be a JSON object');
      try {
        return { status: 200, headers: SQS_JSON, body: JSON.stringify(await action(queues, input)) };
      } catch (error) {
        if (error instanceof QueueDoesNotExistError) return sqsError(400, 'QueueDoesNotExist', error.message);
        if (error instanceof InvalidParameterError) return sqsError(400, error.type, error.message);
        if (error instanceof QueueClosedError) return sqsError(503, 'ServiceUnavailable', error.message, 'Receiver');
        throw error;
      }
    },
  };
}
