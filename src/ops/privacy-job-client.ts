/**
 * How `npm run erase` and `npm run export` start the privacy job and follow it (the job itself runs
 * on AWS as the `privacy-job` function, locally in the runtime): a job message on the job queue
 * (sqs:SendMessage: IAM on AWS, the runtime's local credentials locally), then the job's record
 * polled (a consistent GetItem) until it is done.
 */
import { randomUUID } from 'node:crypto';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { ExportJobs, type ExportJobRecord } from '../adapters/dynamo/export-jobs.js';
import type { ErasureRecord } from '../adapters/dynamo/user-eraser.js';
import { erasureRecordId, type ErasureReport, type ErasureSubject } from '../core/privacy/erasure.js';
import { erasureJobId, jobIdOf, newExportJobId, type PrivacyJobMessage } from '../core/privacy/privacy-jobs.js';
import type { OpsTarget } from './targets.js';

export interface FollowOptions {
  /** Give up after this long (the job goes on). Default 1 hour. */
  timeoutMs?: number;
  intervalMs?: number;
  /** Progress lines (stderr). */
  onProgress?: (line: string) => void;
  sleep?: (ms: number) => Promise<void>;
}

const sleeper = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function send(target: OpsTarget, job: PrivacyJobMessage): Promise<void> {
  if (!target.privacyJobQueueUrl) throw new Error('no privacy job queue: start the local runtime (npm start), or give --job-queue <PrivacyJobQueueUrl> on AWS');
  await target.sqs.send(new SendMessageCommand({ QueueUrl: target.privacyJobQueueUrl, MessageBody: JSON.stringify(job) }));
}

async function erasureRecord(target: OpsTarget, subject: ErasureSubject): Promise<ErasureRecord | undefined> {
  const output = await target.documentClient.send(new GetCommand({ TableName: target.idempotencyTable, Key: { id: erasureRecordId(subject) }, ConsistentRead: true }));
  return output.Item as ErasureRecord | undefined;
}

/** Starts an erasure job and waits until it is done; answers its report. */
export async function eraseThroughJob(target: OpsTarget, subject: ErasureSubject, options: FollowOptions = {}): Promise<{ jobId: string; report: ErasureReport }> {
  const jobId = erasureJobId(subject);
  // Every save bumps the record's version: done at another version than now is this job's end.
  const before = (await erasureRecord(target, subject))?.version;
  await send(target, { v: 1, kind: 'erase', ...subject });
  options.onProgress?.(`erasure job ${jobId} started`);
  const record = await poll(options, async () => {
    const current = await erasureRecord(target, subject);
    return current?.status === 'done' && current.version !== before ? current : undefined;
  }, `erasure job ${jobId}`);
  return { jobId, report: record.report };
}

/** Starts an export job and waits until its document is stored; answers the job's record (its object key). */
export async function exportThroughJob(target: OpsTarget, subject: ErasureSubject, options: FollowOptions = {}): Promise<{ jobId: string; record: ExportJobRecord }> {
  const exportId = newExportJobId(subject, Date.now(), randomUUID());
  const jobId = jobIdOf({ kind: 'export', tenantId: subject.tenantId, jobId: exportId });
  await send(target, { v: 1, kind: 'export', ...subject, jobId: exportId });
  options.onProgress?.(`export job ${jobId} started`);
  const jobs = new ExportJobs(target.documentClient, target.idempotencyTable);
  const record = await poll(options, async () => {
    const current = await jobs.get(subject.tenantId, exportId);
    return current?.status === 'done' ? current : undefined;
  }, `export job ${jobId}`);
  return { jobId, record };
}

async function poll<T>(options: FollowOptions, check: () => Promise<T | undefined>, what: string): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 3_600_000);
  const sleep = options.sleep ?? sleeper;
  for (;;) {
    const found = await check();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`${what} is not done yet; it goes on (run the command again to follow it, or read its record)`);
    await sleep(options.intervalMs ?? 250);
  }
}
