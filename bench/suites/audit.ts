/**
 * The audit trail: what a decision costs the delivery path (CPU of pseudonymizing and sealing, the
 * group commit's write + fdatasync), how many records and appends a published event makes on the
 * local runtime, how big a record is (plain and gzipped, as Firehose stores it), and from those the
 * AWS cost per million decisions of Firehose against a writer of our own.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { FileAuditArchive } from '../../src/adapters/audit/file-archive.js';
import { AuditWriter } from '../../src/core/audit/audit-writer.js';
import type { AuditDecisionInput } from '../../src/core/audit/decisions.js';
import type { AuditSalts, SaltLookup } from '../../src/core/audit/ports.js';
import { Pseudonymizer } from '../../src/core/audit/pseudonymizer.js';
import { newSalt, tenantKeyFromMaster } from '../../src/core/audit/pseudonyms.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../src/local/embedded-dynamo.js';
import { startLocalRuntime } from '../../src/local/runtime.js';
import { localSettingsFromEnv } from '../../src/local/settings.js';
import { round, type BenchResult, type BenchSuite } from '../harness.js';

const DECISIONS = 20_000;
const USERS = 1_000;
const GROUP = 10;
const APPENDS = 400;
const EVENTS = 300;

/** List prices (us-east-1, on-demand), as used in the cost model below; check them against the AWS pages before relying on them. */
const PRICE = {
  firehosePerGiB: 0.029,
  firehoseRecordUnitBytes: 5 * 1024,
  s3PutPer1000: 0.005,
  s3StoragePerGiBMonth: 0.023,
  sqsPerMillionRequests: 0.4,
  dynamoPerMillionReadUnits: 0.125,
} as const;

function decision(index: number): AuditDecisionInput {
  const user = index % USERS;
  return { atMs: Date.UTC(2026, 10, 26) + index, tenantId: 'acme', eventId: `evt-${Math.floor(index / 3)}-0f3a9c`, userId: `user_${user}_2b7e`, notificationId: `01JD${String(index).padStart(22, '0')}`, stage: index % 3 === 0 ? 'fanout' : 'live', channel: index % 3 === 0 ? 'inbox' : 'live', decision: index % 3 === 0 ? 'written' : 'pushed', reason: null, attempt: 1 };
}

class MapSalts implements AuditSalts {
  private readonly salts = new Map<string, Buffer>();
  async saltsOf(tenantId: string, userIds: readonly string[]): Promise<Map<string, SaltLookup>> {
    return new Map(userIds.map((userId) => [userId, this.salts.get(`${tenantId}/${userId}`) ?? this.salts.set(`${tenantId}/${userId}`, newSalt()).get(`${tenantId}/${userId}`)!]));
  }
  async findSalt(): Promise<Buffer | undefined> {
    return undefined;
  }
  async forget(): Promise<void> {}
}

/** Pseudonymize + seal, no I/O: the CPU a decision costs its container. */
async function writerCpu(): Promise<{ usPerDecision: number; lines: string[] }> {
  const lines: string[] = [];
  let segment = 0;
  const master = Buffer.alloc(32, 1);
  const writer = new AuditWriter({
    stream: 'bench',
    sink: { append: async (appended) => void lines.push(...appended) },
    pseudonymizer: new Pseudonymizer({ tenantKey: async (tenantId) => tenantKeyFromMaster(master, tenantId) }, new MapSalts(), { nowMs: () => 0 }),
    newSegmentId: () => `01J${String((segment += 1)).padStart(23, '0')}`,
    nowMs: () => 0,
    onEvent: () => undefined,
  });
  // Warm-up: salts cached, code compiled.
  for (let index = 0; index < USERS; index += 1) writer.record([decision(index)]);
  await writer.flush();
  lines.length = 0;
  const start = performance.now();
  for (let index = 0; index < DECISIONS; index += GROUP) {
    writer.record(Array.from({ length: GROUP }, (_, offset) => decision(index + offset)));
    await writer.flush();
  }
  return { usPerDecision: ((performance.now() - start) * 1000) / DECISIONS, lines };
}

/** The local archive's append: one write (the default; the fdatasync follows within a second), or write + fdatasync. */
async function archiveAppend(lines: readonly string[], syncEach: boolean): Promise<{ msPerAppend: number; gzipRatio: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-audit-'));
  try {
    const archive = new FileAuditArchive(dir, syncEach ? { syncIntervalMs: 0 } : {});
    const samples: number[] = [];
    for (let index = 0; index < APPENDS; index += 1) {
      const group = lines.slice((index * GROUP) % (lines.length - GROUP), ((index * GROUP) % (lines.length - GROUP)) + GROUP);
      const start = performance.now();
      await archive.append(group);
      samples.push(performance.now() - start);
    }
    await archive.close();
    const raw = await readFile(join(dir, 'audit.jsonl'));
    samples.sort((a, b) => a - b);
    return { msPerAppend: samples[Math.floor(samples.length / 2)]!, gzipRatio: gzipSync(raw).length / raw.length };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Records and appends per published mention (2 recipients) on the local runtime, push + email channels on. */
async function perEvent(): Promise<{ recordsPerEvent: number; appendsPerEvent: number }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'bench-audit-e2e-'));
  const runtime = await startLocalRuntime({ ...localSettingsFromEnv({}), port: 0, wsPort: 0, dataDir });
  const events = new EventBridgeClient({ endpoint: runtime.endpoints.events, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  try {
    for (let index = 0; index < EVENTS; index += 10) {
      const entries = Array.from({ length: 10 }, (_, offset) => ({ EventBusName: runtime.endpoints.eventBusName, Source: 'bench', DetailType: 'mention.created', Detail: JSON.stringify({ id: `e-${index + offset}`, tenantId: 'bench', actor: { id: 'author' }, recipients: [`u${(index + offset) % 50}`, `v${(index + offset) % 50}`], data: { postId: 'p', excerpt: 'x' } }) }));
      await events.send(new PutEventsCommand({ Entries: entries }));
    }
    const { urgent, push, email, intake } = runtime.queues;
    for (let waited = 0; waited < 30_000 && [urgent, push, email, ...Object.values(intake)].some((queue) => queue.peek().length > 0); waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    await runtime.audit.trail.flush();
    return { recordsPerEvent: runtime.audit.counts.written / EVENTS, appendsPerEvent: runtime.audit.appends / EVENTS };
  } finally {
    events.destroy();
    await runtime.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** $ per million decisions when every invocation's `k` decisions are one Firehose record (billed per 5 KB). */
function firehosePerMillion(k: number, bytesPerRecord: number): number {
  const billedBytes = Math.ceil((k * bytesPerRecord) / PRICE.firehoseRecordUnitBytes) * PRICE.firehoseRecordUnitBytes;
  return ((1e6 / k) * billedBytes * PRICE.firehosePerGiB) / 2 ** 30;
}

export const suite: BenchSuite = {
  id: 'audit',
  title: 'Audit trail: cost per decision on the delivery path, and per million decisions on AWS',
  method: `
**CPU** (\`audit.cpu.us_per_decision\`): ${DECISIONS} decisions for ${USERS} users (salts cached after a warm-up, as in a
warm container), recorded and flushed in groups of ${GROUP} through \`AuditWriter\` with an in-memory sink: the
HMAC pseudonyms (event, user, notification) and the SHA-256 chain, per decision. **Group commit**
(\`audit.local.append_ms.p50\`): one append of ${GROUP} records to \`DATA_DIR/audit/audit.jsonl\` = one write(2), median of
${APPENDS}: what a batch's barrier waits for locally (after its pushes; not on the push's path). The archive's fdatasync
runs at most once a second after writes; \`append_synced_ms\` is what syncing every append would cost instead.
**Per event** (\`audit.local.*_per_event\`): ${EVENTS} \`mention.created\` events to 2 recipients each through the local runtime
(real PutEvents; push and email channels on, nobody connected): records written and archive appends per event
(appends < records: concurrent batches share a commit). **Size**: mean bytes of a decision line, and gzip's ratio
on the archive (Firehose stores GZIP objects).

**Cost per million decisions** (model, list prices us-east-1 on-demand: Firehose $${PRICE.firehosePerGiB}/GB ingested with
each record rounded up to 5 KB, S3 PUT $${PRICE.s3PutPer1000}/1,000, SQS $${PRICE.sqsPerMillionRequests}/million requests; check current prices):
each function invocation packs its k decisions into ONE Firehose record (src/adapters/audit/firehose-sink.ts), so
Firehose bills max(5 KB, k x record bytes) per invocation: \`audit.aws.firehose.usd_per_million.k1/k5/k50\`. The
alternatives: one S3 PutObject per invocation from the functions (\`...s3_put_per_invocation.k5\`), or an SQS queue to a
batching writer (\`...sqs_writer.k5\`, about 1.2 requests per message with batched receive/delete, before the writer's own
PUTs). S3 storage (\`audit.aws.storage.usd_per_million_month\`): gzipped bytes x $${PRICE.s3StoragePerGiBMonth}/GB-month, per month of
retention. Not in the table: KMS GenerateMac (one call per tenant per container start), DynamoDB salt reads (at most one
read unit per user per container per minute: <= $${PRICE.dynamoPerMillionReadUnits}/million), and the Lambda time of the barrier (one
PutRecordBatch round trip per invocation, after the pushes).
`,
  async run(): Promise<BenchResult[]> {
    const cpu = await writerCpu();
    const archive = await archiveAppend(cpu.lines, false);
    const synced = await archiveAppend(cpu.lines, true);
    const local = await perEvent();
    const decisionLines = cpu.lines.filter((line) => line.includes('"kind":"decision"'));
    const bytesPerRecord = decisionLines.reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0) / decisionLines.length;
    return [
      { name: 'audit.cpu.us_per_decision', value: round(cpu.usPerDecision), unit: 'µs', note: 'pseudonymize (3 HMACs) + seal (SHA-256), warm salts' },
      { name: 'audit.local.append_ms.p50', value: round(archive.msPerAppend, 3), unit: 'ms', note: `one write of ${GROUP} records: what a batch's barrier waits for locally` },
      { name: 'audit.local.append_synced_ms.p50', value: round(synced.msPerAppend, 3), unit: 'ms', note: 'the same with an fdatasync after each append (not done: the sync runs at most once a second, off the path)' },
      { name: 'audit.local.records_per_event', value: round(local.recordsPerEvent), unit: 'records', note: 'mention to 2 recipients: intake, fan-out x2, live x2, push x2, email x2 (+ segment headers)' },
      { name: 'audit.local.appends_per_event', value: round(local.appendsPerEvent), unit: 'appends', note: 'group commit: records per append = records / appends' },
      { name: 'audit.record.bytes', value: round(bytesPerRecord, 0), unit: 'bytes', note: 'one decision line' },
      { name: 'audit.record.gzip_ratio', value: round(archive.gzipRatio, 3), unit: 'ratio', note: 'gzipped / plain on the archive' },
      { name: 'audit.aws.firehose.usd_per_million.k1', value: round(firehosePerMillion(1, bytesPerRecord), 4), unit: 'USD', note: 'one decision per invocation (worst case)' },
      { name: 'audit.aws.firehose.usd_per_million.k5', value: round(firehosePerMillion(5, bytesPerRecord), 4), unit: 'USD', note: 'five per invocation' },
      { name: 'audit.aws.firehose.usd_per_million.k50', value: round(firehosePerMillion(50, bytesPerRecord), 4), unit: 'USD', note: 'fifty per invocation (a fan-out batch)' },
      { name: 'audit.aws.alternative.s3_put_per_invocation.k5', value: round((1e6 / 5 / 1000) * PRICE.s3PutPer1000, 4), unit: 'USD', note: 'a writer of our own: one PutObject per invocation' },
      { name: 'audit.aws.alternative.sqs_writer.k5', value: round((1e6 / 5) * 1.2 * (PRICE.sqsPerMillionRequests / 1e6), 4), unit: 'USD', note: 'SQS to one batching writer, before its PUTs' },
      { name: 'audit.aws.storage.usd_per_million_month', value: round(((1e6 * bytesPerRecord * archive.gzipRatio) / 2 ** 30) * PRICE.s3StoragePerGiBMonth, 5), unit: 'USD', note: 'S3 Standard, gzipped, per month kept' },
    ];
  },
};
