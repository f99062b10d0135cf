/** Shared builders of the AWS queue and schedule clients (fan-out, promotion, delivery). */
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { SQSClient } from '@aws-sdk/client-sqs';
import { EventBridgeScheduler } from '../adapters/scheduler/eventbridge-scheduler.js';
import type { SchedulerConfig } from './shared-config.js';
import { clientOptions, type Parts } from './parts.js';

export function sqsClient(parts: Parts): SQSClient {
  return parts.shared(sqsClient, [], () =>
    new SQSClient({
      ...clientOptions(parts),
      ...(parts.aws.sqsEndpoint ? { endpoint: parts.aws.sqsEndpoint } : {}),
      ...(parts.aws.sqsCredentials ? { credentials: parts.aws.sqsCredentials } : {}),
    }),
  );
}

/** EventBridge Scheduler (the local runtime passes its own Scheduler instead). */
export function eventBridgeScheduler(parts: Parts, config: SchedulerConfig): EventBridgeScheduler {
  return parts.shared(eventBridgeScheduler, [config.groupName, config.roleArn, config.deadLetterArn], () => new EventBridgeScheduler(new SchedulerClient(clientOptions(parts)), config));
}
