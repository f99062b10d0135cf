/** Shared builders of the AWS queue and schedule clients (fan-out, promotion, delivery). */
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { SQSClient } from '@aws-sdk/client-sqs';
import { coalescingSqsClient } from '../adapters/sqs/coalescing-sqs-client.js';
import { EventBridgeScheduler } from '../adapters/scheduler/eventbridge-scheduler.js';
import type { SchedulerConfig } from './shared-config.js';
import { clientOptions, instrumented, type Parts } from './parts.js';

/** SendMessageBatch calls to one queue that concurrent callers make in one turn of the event loop go out as shared requests (adapters/sqs/coalescing-sqs-client.ts). */
export function sqsClient(parts: Parts): SQSClient {
  return parts.shared(sqsClient, [], () =>
    coalescingSqsClient(instrumented(parts, new SQSClient({
      ...clientOptions(parts),
      ...(parts.aws.sqsEndpoint ? { endpoint: parts.aws.sqsEndpoint } : {}),
      ...(parts.aws.sqsCredentials ? { credentials: parts.aws.sqsCredentials } : {}),
    })), parts.aws.callScope),
  );
}

/** EventBridge Scheduler (locally its stand-in on the runtime's HTTP server). */
export function eventBridgeScheduler(parts: Parts, config: SchedulerConfig): EventBridgeScheduler {
  return parts.shared(eventBridgeScheduler, [config.groupName, config.roleArn, config.deadLetterArn], () => new EventBridgeScheduler(schedulerClient(parts), config));
}

function schedulerClient(parts: Parts): SchedulerClient {
  return parts.shared(schedulerClient, [], () =>
    instrumented(parts, new SchedulerClient({
      ...clientOptions(parts),
      ...(parts.aws.schedulerEndpoint ? { endpoint: parts.aws.schedulerEndpoint } : {}),
      ...(parts.aws.schedulerEndpoint && parts.aws.sqsCredentials ? { credentials: parts.aws.sqsCredentials } : {}),
    })),
  );
}
