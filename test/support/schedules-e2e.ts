/** Shared plumbing of the schedules / quiet hours / rate limit end-to-end suites. */
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import type { EventEnvelope } from '../../src/core/fanout/events.js';
import type { Notification } from '../../src/core/model/notification.js';
import type { UserRef } from '../../src/core/model/user.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalRuntime, type LocalRuntime, type LocalRuntimeOptions } from '../../src/local/runtime.js';
import { localSettingsFromEnv, type LocalSettings } from '../../src/local/settings.js';
import { putEntry } from './events.js';
import { call } from './http.js';
import { pollUntil, type PollOptions } from './poll-until.js';
import type { TestSocket } from './ws-client.js';

export const PIPELINE_POLL: PollOptions = { attempts: 400, intervalMs: 25 };

export function eventsClientOf(runtime: LocalRuntime): EventBridgeClient {
  return new EventBridgeClient({ endpoint: runtime.endpoints.events, region: 'us-east-1', credentials: { accessKeyId: 'any', secretAccessKey: 'any' } });
}

export interface E2eRuntime {
  dataDir: string;
  runtime: LocalRuntime;
  events: EventBridgeClient;
}

/** A fresh data directory, the local runtime on free ports with the suite's settings, and an EventBridge client to it. */
export async function startE2eRuntime(dirPrefix: string, settings: Partial<LocalSettings> = {}, options: LocalRuntimeOptions = {}): Promise<E2eRuntime> {
  const dataDir = await mkdtemp(join(tmpdir(), dirPrefix));
  const runtime = await startLocalRuntime({ ...localSettingsFromEnv({}), port: 0, wsPort: 0, dataDir, ...settings }, options);
  return { dataDir, runtime, events: eventsClientOf(runtime) };
}

/** Closes the sockets, the client and the runtime and removes the data directory; tolerates a start that failed half-way. */
export async function stopE2eRuntime(started: Partial<E2eRuntime>, sockets: readonly TestSocket[] = []): Promise<void> {
  await Promise.all(sockets.map((socket) => socket.close()));
  started.events?.destroy();
  await started.runtime?.close();
  if (started.dataDir) await rm(started.dataDir, { recursive: true, force: true });
}

export async function publish(events: EventBridgeClient, detailType: string, ...details: EventEnvelope[]): Promise<void> {
  const output = await events.send(new PutEventsCommand({ Entries: details.map((detail) => putEntry(detailType, detail)) }));
  if ((output.FailedEntryCount ?? 0) !== 0) throw new Error(`PutEvents refused entries: ${JSON.stringify(output.Entries)}`);
}

/** Every pipeline queue (intake, delivery, promotion) is empty: each message was consumed to the end. */
export async function pipelineDrained(runtime: LocalRuntime, poll: PollOptions = PIPELINE_POLL): Promise<void> {
  const { urgent, info, promotion, intake, urgentIntake } = runtime.queues;
  await pollUntil(() => [urgent, info, promotion, ...Object.values(intake), ...Object.values(urgentIntake)].every((queue) => queue.peek().length === 0), poll, 'pipeline queues empty');
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

/** Waits until the next UTC day when it is less than 2 minutes away: a suite counting texts per UTC day (the SMS spend guards) then runs within one day. */
export async function outOfMidnight(): Promise<void> {
  const untilMidnightMs = 86_400_000 - (Date.now() % 86_400_000);
  if (untilMidnightMs < 120_000) await sleep(untilMidnightMs + 1_000);
}
