/** The Lambda context of a locally invoked handler. */
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { LOCAL_ACCOUNT_ID } from './local-account.js';

/** Lambda's own default function timeout (used when a caller names none). */
export const DEFAULT_FUNCTION_TIMEOUT_MS = 60_000;

/**
 * A Lambda context whose remaining time is the real one: the function timeout minus the time
 * elapsed since `startedAt` (the receive of its batch). Powertools idempotency expires an
 * IN_PROGRESS record at that deadline, as on AWS, so a record left by a killed run frees up when
 * the run would have timed out.
 */
export function localLambdaContext(functionName: string, timeoutMs = DEFAULT_FUNCTION_TIMEOUT_MS, startedAt = Date.now()): Context {
  const deadline = startedAt + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:${LOCAL_ACCOUNT_ID}:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
