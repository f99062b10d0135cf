/** Shared plumbing of the schedules / quiet hours / rate limit end-to-end suites. */
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import type { EventEnvelope } from '../../src/core/events.js';
import type { Notification } from '../../src/core/notification.js';
import type { UserRef } from '../../src/core/ports/inbox.js';
import type { LocalRuntime } from '../../src/local/runtime.js';
import { putEntry } from './events.js';
import { call } from './http.js';
import { pollUntil, type PollOptions } from './poll-until.js';

export const PIPELINE_POLL: PollOptions = { attempts: 400, intervalMs: 25 };

export function eventsClientOf(runtime: LocalRuntime): EventBridgeClient {
  return new EventBridgeClient({ endpoint: runtime.endpoints.events, region: 'us-east-1', credentials: { accessKeyId: 'any', secretAccessKey: 'any' } });
}

export async function publish(events: EventBridgeClient, detailType: string, ...details: EventEnvelope[]): Promise<void> {
  const output = await events.send(new PutEventsCommand({ Entries: details.map((detail) => putEntry(detailType, detail)) }));
  if ((output.FailedEntryCount ?? 0) !== 0) throw new Error(`PutEvents refused entries: ${JSON.stringify(output.Entries)}`);
}

/** Every pipeline queue (intake, delivery, promotion) is empty: each message was consumed to the end. */
export async function pipelineDrained(runtime: LocalRuntime, poll: PollOptions = PIPELINE_POLL): Promise<void> {
  const { urgent, info, promotion, intake } = runtime.queues;
  await pollUntil(() => [urgent, info, promotion, ...Object.values(intake)].every((queue) => queue.peek().length === 0), poll, 'pipeline queues empty');
}

export async function inboxOf(runtime: LocalRuntime, user: UserRef): Promise<Notification[]> {
  const token = await runtime.secrets.issueToken(user);
  const answer = await call(runtime.endpoints.http, 'GET', '/notifications?limit=100', { token });
  if (answer.status !== 200) throw new Error(`GET /notifications answered ${answer.status}: ${answer.text}`);
  return (answer.body as { items: Notification[] }).items;
}

export async function putPreferences(runtime: LocalRuntime, user: UserRef, body: unknown): Promise<void> {
  const token = await runtime.secrets.issueToken(user);
  const answer = await call(runtime.endpoints.http, 'PUT', '/preferences', { token, body: JSON.stringify(body) });
  if (answer.status !== 200) throw new Error(`PUT /preferences answered ${answer.status}: ${answer.text}`);
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
