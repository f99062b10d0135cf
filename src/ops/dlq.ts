/**
 * `npm run dlq -- list | inspect <queue> | redrive <queue>`: every dead-letter queue, inspected and
 * replayed into the entry point its messages came from.
 *
 * - Intake, delivery and promotion DLQs have a source queue: on AWS a native SQS message move task
 *   (StartMessageMoveTask) puts them back; locally each message is sent back to its source queue.
 * - The EventBridge rule-target DLQ has no source queue: its messages are events, replayed with
 *   PutEvents on the bus (the rule routes them to their intake queue again).
 * - The Scheduler DLQ has no source queue: each message is a schedule's payload, sent to the
 *   schedule's target queue (its `TARGET_ARN` attribute).
 *
 * Idempotent: a message is deleted from the DLQ only after it was replayed, and replaying twice
 * delivers once (fan-out idempotency by type + tenant + event id, inbox ids, the delivery ledger).
 */
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { putEntries } from '../producer/put-entries.js';
import {
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ListQueuesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  StartMessageMoveTaskCommand,
  type Message,
} from '@aws-sdk/client-sqs';
import { localSettingsFromEnv } from '../local/settings.js';
import { awsTarget, localTarget, type OpsTarget } from './targets.js';

export type DlqKind = 'rule-target' | 'scheduler' | 'queue';

export interface DlqSummary {
  name: string;
  url: string;
  kind: DlqKind;
  approximateMessages: number;
}

export interface RedriveResult {
  queue: string;
  kind: DlqKind;
  replayed: number;
  failed: number;
  /** AWS native move: the task handle (messages move asynchronously). */
  moveTaskHandle?: string;
}

const isDlqName = (name: string) => /dlq|deadletter/i.test(name);

/** From the name the CDK app gives it (RuleTargetDlq, Scheduling…Dlq) or, for a message, its attributes. */
export function dlqKindOf(name: string, message?: Message): DlqKind {
  const attributes = message?.MessageAttributes ?? {};
  if ('RULE_ARN' in attributes || /RuleTarget/i.test(name)) return 'rule-target';
  if ('SCHEDULE_ARN' in attributes || /Schedul/i.test(name)) return 'scheduler';
  return 'queue';
}

const nameOf = (url: string) => url.split('/').pop() ?? url;

export async function listDeadLetterQueues(target: OpsTarget): Promise<DlqSummary[]> {
  const urls = target.localQueues
    ? target.localQueues.filter((queue) => queue.sourceQueueName !== undefined).map((queue) => queue.url)
    : ((await target.sqs.send(new ListQueuesCommand({ MaxResults: 1000 }))).QueueUrls ?? []).filter((url) => isDlqName(nameOf(url)));
  return Promise.all(
    urls.map(async (url) => {
      const { Attributes } = await target.sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['ApproximateNumberOfMessages'] }));
      return { name: nameOf(url), url, kind: dlqKindOf(nameOf(url)), approximateMessages: Number(Attributes?.ApproximateNumberOfMessages ?? 0) };
    }),
  );
}

async function queueUrlOf(target: OpsTarget, queue: string): Promise<string> {
  if (queue.startsWith('http')) return queue;
  const local = target.localQueues?.find((candidate) => candidate.name === queue || candidate.arn === queue);
  if (local) return local.url;
  const name = queue.startsWith('arn:') ? queue.split(':').pop()! : queue;
  const owner = queue.startsWith('arn:') ? queue.split(':')[4] : undefined;
  return (await target.sqs.send(new GetQueueUrlCommand({ QueueName: name, ...(owner ? { QueueOwnerAWSAccountId: owner } : {}) }))).QueueUrl!;
}

/** Reads up to `max` messages without consuming them (visibility 0: they stay available). */
export async function inspectDeadLetterQueue(target: OpsTarget, queue: string, max = 10): Promise<Message[]> {
  const url = await queueUrlOf(target, queue);
  const output = await target.sqs.send(
    new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: Math.min(10, max), VisibilityTimeout: 0, WaitTimeSeconds: 0, MessageAttributeNames: ['All'], MessageSystemAttributeNames: ['All'] }),
  );
  return output.Messages ?? [];
}

/** A rule-target DLQ message (an EventBridge event) back onto the bus. */
async function replayEvent(target: OpsTarget, message: Message): Promise<void> {
  const event = JSON.parse(message.Body ?? '') as { source?: string; 'detail-type'?: string; detail?: unknown; time?: string; resources?: string[] };
  if (!target.eventBusName) throw new Error('the event bus is needed to replay a rule-target DLQ message: --bus <name>');
  if (typeof event.source !== 'string' || typeof event['detail-type'] !== 'string') throw new Error('not an EventBridge event (no source / detail-type)');
  // A redrive of a big DLQ meets the bus's throttling (the local intake's back-pressure too): throttled entries are resent after a backoff.
  await putEntries(target.events, [
    { EventBusName: target.eventBusName, Source: event.source, DetailType: event['detail-type'], Detail: JSON.stringify(event.detail ?? {}), ...(event.time ? { Time: new Date(event.time) } : {}), ...(event.resources ? { Resources: event.resources } : {}) },
  ]);
}

/** A Scheduler DLQ message (a schedule's payload) to the schedule's target queue. */
async function replaySchedule(target: OpsTarget, message: Message): Promise<void> {
  const targetArn = message.MessageAttributes?.TARGET_ARN?.StringValue;
  if (!targetArn) throw new Error('no TARGET_ARN attribute: cannot tell which queue the schedule targeted');
  await target.sqs.send(new SendMessageCommand({ QueueUrl: await queueUrlOf(target, targetArn), MessageBody: message.Body ?? '' }));
}

/** Replays every message of a DLQ into its entry point; a message is deleted only once replayed. */
export async function redriveDeadLetterQueue(target: OpsTarget, queue: string, options: { log?: (line: string) => void } = {}): Promise<RedriveResult> {
  const log = options.log ?? (() => undefined);
  const url = await queueUrlOf(target, queue);
  const name = nameOf(url);
  const kind = dlqKindOf(name);
  if (kind === 'queue' && target.kind === 'aws') {
    const { Attributes } = await target.sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }));
    const task = await target.sqs.send(new StartMessageMoveTaskCommand({ SourceArn: Attributes!.QueueArn! }));
    return { queue: name, kind, replayed: 0, failed: 0, ...(task.TaskHandle ? { moveTaskHandle: task.TaskHandle } : {}) };
  }
  const sourceUrl = kind === 'queue' ? await localSourceQueueUrl(target, name) : undefined;
  const result: RedriveResult = { queue: name, kind, replayed: 0, failed: 0 };
  const failedIds = new Set<string>();
  for (;;) {
    const { Messages = [] } = await target.sqs.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, VisibilityTimeout: 60, WaitTimeSeconds: 0, MessageAttributeNames: ['All'] }));
    const fresh = Messages.filter((message) => !failedIds.has(message.MessageId ?? ''));
    if (fresh.length === 0) break;
    for (const message of fresh) {
      try {
        const messageKind = dlqKindOf(name, message);
        if (messageKind === 'rule-target') await replayEvent(target, message);
        else if (messageKind === 'scheduler') await replaySchedule(target, message);
        else await target.sqs.send(new SendMessageCommand({ QueueUrl: sourceUrl!, MessageBody: message.Body ?? '' }));
        await target.sqs.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: message.ReceiptHandle! }));
        result.replayed += 1;
      } catch (error) {
        // Left in the DLQ (it reappears after the visibility timeout); reported, not retried in this run.
        failedIds.add(message.MessageId ?? '');
        result.failed += 1;
        log(`${message.MessageId}: not replayed: ${(error as Error).message}`);
      }
    }
  }
  return result;
}

async function localSourceQueueUrl(target: OpsTarget, dlqName: string): Promise<string> {
  const source = target.localQueues?.find((queue) => queue.name === dlqName)?.sourceQueueName;
  if (!source) throw new Error(`${dlqName}: no source queue known`);
  return queueUrlOf(target, source);
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { aws: { type: 'boolean', default: false }, region: { type: 'string' }, bus: { type: 'string' }, max: { type: 'string', default: '10' } },
  });
  const [command, queue] = positionals;
  if (!command || !['list', 'inspect', 'redrive'].includes(command) || (command !== 'list' && !queue)) {
    process.stderr.write('usage: npm run --silent dlq -- list | inspect <queue> [--max n] | redrive <queue>   [--aws [--region r] [--bus <event bus>]]\n  <queue>: name, URL or ARN; without --aws: the local runtime of DATA_DIR\n');
    process.exit(2);
  }
  const target = values.aws ? awsTarget({ ...(values.region ? { region: values.region } : {}), ...(values.bus ? { bus: values.bus } : {}) }) : await localTarget(localSettingsFromEnv().dataDir);
  try {
    if (command === 'list') {
      for (const dlq of await listDeadLetterQueues(target)) process.stdout.write(`${String(dlq.approximateMessages).padStart(6)}  ${dlq.kind.padEnd(11)} ${dlq.name}\n`);
    } else if (command === 'inspect') {
      for (const message of await inspectDeadLetterQueue(target, queue!, Number(values.max))) {
        const attributes = Object.fromEntries(Object.entries(message.MessageAttributes ?? {}).map(([key, value]) => [key, value.StringValue]));
        process.stdout.write(`${JSON.stringify({ messageId: message.MessageId, receiveCount: message.Attributes?.ApproximateReceiveCount, attributes, body: message.Body })}\n`);
      }
    } else {
      const result = await redriveDeadLetterQueue(target, queue!, { log: (line) => process.stderr.write(`${line}\n`) });
      process.stdout.write(`${JSON.stringify(result)}\n`);
      if (result.failed > 0) process.exitCode = 1;
    }
  } finally {
    target.destroy();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
