/**
 * The erase and export job on the local runtime, started as a product backend starts it: a
 * `user.erased` or `user.export.requested` event on the notifications bus (real EventBridge SDK
 * PutEvents), the rule putting it on the privacy job queue, the same composition as the deployed
 * `privacy-job` function consuming it. A message that is no job goes to the job queue's DLQ.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { SQSClient, SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExportJobs } from '../../src/adapters/dynamo/export-jobs.js';
import { userExportSchema } from '../../src/contract/user-export.js';
import { exportObjectKey, exportPrefixOf } from '../../src/core/privacy/privacy-jobs.js';
import { erasureRecordId } from '../../src/core/privacy/erasure.js';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { UserRef } from '../../src/core/model/user.js';
import { LOCAL_REGION } from '../../src/local/embedded-dynamo.js';
import { aMention } from '../support/events.js';
import { pollUntil } from '../support/poll-until.js';
import { inboxOf, pipelineDrained, publish, startE2eRuntime, stopE2eRuntime, type E2eRuntime } from '../support/schedules-e2e.js';

const TENANT = 'acme';
const POLL = { attempts: 400, intervalMs: 25 };
const user = (userId: string): UserRef => ({ tenantId: TENANT, userId });

let started: E2eRuntime;
beforeAll(async () => {
  started = await startE2eRuntime('privacy-jobs-e2e-', { functionTimeoutMs: 500, maxReceiveCount: 2 });
});
afterAll(async () => {
  await stopE2eRuntime(started ?? {}, []);
});

async function request(detailType: string, detail: unknown): Promise<void> {
  const output = await started.events.send(new PutEventsCommand({ Entries: [{ EventBusName: started.runtime.endpoints.eventBusName, Source: 'product.backend', DetailType: detailType, Detail: JSON.stringify(detail) }] }));
  expect(output.FailedEntryCount ?? 0).toBe(0);
}

describe('the privacy job on the local runtime', () => {
  it('a user.export.requested event writes the export, then a user.erased event erases the user and their exports', async () => {
    // Prepare: eva has a mention; her export is requested by the product backend
    const eva = user('eva');
    await publish(started.events, 'mention.created', aMention({ recipients: ['eva'] }));
    await pipelineDrained(started.runtime, POLL);
    await pollUntil(async () => (await inboxOf(started.runtime, eva)).length === 1, POLL, 'eva has a mention');
    const exportsDir = join(started.dataDir, 'exports', exportPrefixOf(eva));

    // Act: export
    await request('user.export.requested', { tenantId: TENANT, userId: 'eva' });

    // Assess: one export document under the digest of the subject, its job record done
    const files = await pollUntil(async () => {
      try {
        const { readdir } = await import('node:fs/promises');
        const names = await readdir(exportsDir);
        return names.length > 0 ? names : undefined;
      } catch {
        return undefined;
      }
    }, POLL, 'export written');
    const jobId = files[0]!.replace(/\.json$/, '');
    const record = await pollUntil(async () => {
      const found = await new ExportJobs(started.runtime.documentClient, started.runtime.dynamo.tableNames.idempotency).get(TENANT, jobId);
      return found?.status === 'done' ? found : undefined;
    }, POLL, 'export job done');
    expect(record.objectKey).toBe(exportObjectKey(eva, jobId));
    const document = userExportSchema.parse(JSON.parse(await readFile(join(started.dataDir, 'exports', record.objectKey), 'utf8')));
    expect(document.inbox).toHaveLength(1);
    expect(exportsDir).not.toContain('eva');

    // Act: erase
    await request('user.erased', { tenantId: TENANT, userId: 'eva' });

    // Assess: the erasure ran to the end in the runtime, her inbox and her exports are gone
    const erased = await pollUntil(async () => {
      const output = await started.runtime.documentClient.send(new GetCommand({ TableName: started.runtime.dynamo.tableNames.idempotency, Key: { id: erasureRecordId(eva) }, ConsistentRead: true }));
      return output.Item?.status === 'done' ? output.Item : undefined;
    }, { attempts: 400, intervalMs: 50 }, 'erasure done');
    expect(erased.report.exportsDeleted).toBe(1);
    expect(await inboxOf(started.runtime, eva)).toEqual([]);
    const { readdir } = await import('node:fs/promises');
    await expect(readdir(exportsDir)).rejects.toThrow();
  });

  it('refuses a privacy request with another shape at PutEvents, and moves a job message that is no job to the DLQ', { timeout: 90_000 }, async () => {
    // Prepare
    const entries = [{ EventBusName: started.runtime.endpoints.eventBusName, Source: 'product.backend', DetailType: 'user.erased', Detail: JSON.stringify({ tenantId: TENANT, userId: 'x', extra: '__proto__' }) }];
    const sqs = new SQSClient({ endpoint: started.runtime.endpoints.http, region: LOCAL_REGION, credentials: started.runtime.queues.sqsCredentials });

    // Act
    const output = await started.events.send(new PutEventsCommand({ Entries: entries }));
    await sqs.send(new SendMessageCommand({ QueueUrl: started.runtime.queues.privacy.url, MessageBody: `{"v":1,"kind":"erase","tenantId":"${TENANT}","userId":"x","__proto__":{"kind":"everyone"}}` }));

    // Assess
    expect(output.FailedEntryCount).toBe(1);
    expect(output.Entries?.[0]?.ErrorCode).toBe('InvalidArgument');
    const dlq = started.runtime.queues.registry.byQueueName('PrivacyJobs-dlq');
    await pollUntil(() => dlq.peek().length === 1, { attempts: 1_200, intervalMs: 50 }, 'forged job dead-lettered');
    sqs.destroy();
  });
});
