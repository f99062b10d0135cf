/**
 * One AWS call the local runtime saw a function (or a Scheduler role) make, in local terms: which
 * table and partition keys, which queue, which schedule, endpoint or connection. The least-privilege
 * check (`scripts/least-privilege/`) maps each to the synthesized template's resources and evaluates
 * it against that principal's IAM policy. Identical calls are stored once, with a count.
 */
import type { TableName } from '../../table-specs.js';

/** Every DynamoDB, SQS, SNS, SES, Scheduler and `@connections` call the functions make locally. */
export type RecordedTarget =
  /** One table of a DynamoDB call, with the distinct partition keys it touches (a batch call gives one entry per table). */
  | { kind: 'table'; table: TableName; partitionKeys: string[]; index?: string }
  /** A local queue by name (`UrgentDelivery`, `IntakeMentionCreated`, ...). */
  | { kind: 'queue'; queue: string }
  /** An SNS platform application or endpoint ARN (the local ones are the synthesized stack's, same account and region). */
  | { kind: 'sns'; arn: string }
  /** SES v2 SendEmail: the sending identity (the From address's domain when no identity ARN is given) and the configuration set. */
  | { kind: 'ses'; identity: string; configurationSet?: string }
  /** End User Messaging SMS: the origination identity (an ARN) and the configuration set a text goes through. */
  | { kind: 'sms'; originationIdentity: string; configurationSet?: string }
  /** End User Messaging SMS: an opt-out list by name or ARN (`DeleteOptedOutNumber`). */
  | { kind: 'smsOptOutList'; optOutList: string }
  /** A schedule of the local group; CreateSchedule names the role it passes and the target. */
  | { kind: 'schedule'; group: string; name: string; roleArn?: string; targetArn?: string }
  /** `@connections/{id}` of the WebSocket API, by HTTP method (POST = PostToConnection). */
  | { kind: 'connection'; method: 'POST' | 'GET' | 'DELETE'; connectionId: string }
  /** A call the recorder cannot describe: the check fails on it rather than guess. */
  | { kind: 'unknown'; detail: string };

export interface RecordedAwsCall {
  /** A function of `src/lambda/functions.ts` with its variant (`rest-write`, `fanout:mention.created`, `delivery:urgent`, `channel:push`), or `role:<ARN>` for Scheduler delivering with a role. */
  principal: string;
  /** The SDK client's service: `dynamodb`, `sqs`, `sns`, `sesv2`, `scheduler`, `apigatewaymanagementapi`. */
  service: string;
  /** The SDK operation (`PutItem`, `SendMessageBatch`, `CreateSchedule`...). */
  operation: string;
  /** The function's own SDK call; the Lambda event source mapping polling its queue with its role; Scheduler delivering a schedule with its role. */
  via: 'sdk' | 'event-source-mapping' | 'scheduler';
  target: RecordedTarget;
  /** How many times this exact call was made. */
  count: number;
}

/** The first line of every recording file: which runtime (test file, process) recorded it. */
export interface RecordingHeader {
  recording: 1;
  label: string;
  pid: number;
  startedAt: string;
}
