/**
 * The audit trail end to end on the local runtime (in-process; real PutEvents, REST, WebSocket, the
 * real SQS SDK to the local backlog queue): each delivery decision lands, pseudonymized and
 * hash-chained, in DATA_DIR/audit/audit.jsonl, and `audit why` explains it from the archive alone:
 * quiet hours (held, then released), push denied without consent, a duplicate publish, a rate-limited
 * burst, an erased recipient (unlinkable afterwards, "erased" answered), hostile ids, an archive
 * outage (buffered on the backlog, drained when it is back), and `audit verify` failing on a changed
 * byte, a deleted line or two swapped lines with the place named (also through the CLI).
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditDecisionRecord } from '../../src/contract/audit-record.js';
import type { Clock } from '../../src/core/ports/clock.js';
import type { UserRef } from '../../src/core/model/user.js';
import { wallClockAt } from '../../src/core/preferences/time-zones.js';
import { formatWhy, type WhyQuery } from '../../src/core/audit/why.js';
import type { LocalRuntime } from '../../src/local/runtime.js';
import { auditWhy, verifyAuditTrail, type WhyResult } from '../../src/ops/audit.js';
import { auditErasureOptions, localArchiveReader, localAuditAccess } from '../../src/ops/audit-access.js';
import { eraseUser } from '../../src/ops/erase.js';
import { localTarget } from '../../src/ops/targets.js';
import { aComment, aMention } from '../support/events.js';
import { call } from '../support/http.js';
import { pollUntil } from '../support/poll-until.js';
import { publish, putPreferences, startE2eRuntime, stopE2eRuntime } from '../support/schedules-e2e.js';
import { TestSocket } from '../support/ws-client.js';

const POLL = { attempts: 400, intervalMs: 25 };

/** The CLI in a child process (asynchronously: `why` talks to this process's runtime). */
function auditCli(args: readonly string[], dataDirOfCli: string): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', join(repoRoot, 'src', 'ops', 'audit.ts'), ...args], { cwd: repoRoot, env: { ...process.env, DATA_DIR: dataDirOfCli }, encoding: 'utf8' }, (error, stdout, stderr) =>
      resolve({ status: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}
const repoRoot = join(import.meta.dirname, '..', '..');
const user = (userId: string, tenantId = 'acme'): UserRef => ({ tenantId, userId });
const pushToken = (name: string) => `${name}${'0'.repeat(64 - name.length)}`;

let dataDir: string;
let runtime: LocalRuntime;
let events: EventBridgeClient;
const sockets: TestSocket[] = [];
let clockOffsetMs = 0;
const clock: Clock = { nowMs: () => Date.now() + clockOffsetMs };

beforeAll(async () => {
  ({ dataDir, runtime, events } = await startE2eRuntime('audit-e2e-', { rateLimitPerMinute: 2, infoBatchWindowMs: 100, channelBatchWindowMs: 100, queueVisibilityTimeoutMs: 800 }, { clock }));
});

afterAll(async () => {
  await stopE2eRuntime({ dataDir, runtime, events }, sockets);
});

async function connect(who: UserRef): Promise<TestSocket> {
  const socket = await TestSocket.open(runtime.endpoints.ws, await runtime.secrets.issueToken(who));
  sockets.push(socket);
  return socket;
}

async function api(who: UserRef, method: string, path: string, body?: unknown) {
  return call(runtime.endpoints.http, method, path, { token: await runtime.secrets.issueToken(who), ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
}

/** Every queue consumed to the end (each batch's audit barrier passed before its messages were deleted). */
async function drained(): Promise<void> {
  const { urgent, info, promotion, intake, urgentIntake, push, email, auditBacklog } = runtime.queues;
  await pollUntil(() => [urgent, info, promotion, push, email, auditBacklog, ...Object.values(intake), ...Object.values(urgentIntake)].every((queue) => queue.peekUndelayed().length === 0), POLL, 'queues empty');
}

async function why(query: WhyQuery): Promise<WhyResult> {
  const access = await localAuditAccess(dataDir, { documentClient: runtime.documentClient, idempotencyTable: runtime.dynamo.tableNames.idempotency });
  return auditWhy(access, query);
}

const summary = (records: readonly AuditDecisionRecord[]) => records.map((record) => `${record.stage} ${record.decision}${record.reason ? ` ${record.reason}` : ''}`);

async function decisionsOf(who: UserRef, eventId: string): Promise<string[]> {
  const answer = await why({ ...who, eventId });
  expect(answer.problems).toBe(0);
  return summary(answer.decisions);
}

async function archiveText(): Promise<string> {
  return readFile(join(dataDir, 'audit', 'audit.jsonl'), 'utf8');
}

const pad = (value: number) => String(value).padStart(2, '0');
const clockTime = (instantMs: number, zone: string) => {
  const wall = wallClockAt(instantMs, zone);
  return `${pad(wall.hour)}:${pad(wall.minute)}`;
};

describe('The audit trail on the local runtime', () => {
  it('a mention to a user in quiet hours: held on the socket and on push, released at the window\'s end; an urgent one goes through', { timeout: 60_000 }, async () => {
    // Arrange: quiet hours from a minute ago to a local minute boundary 1-2 minutes ahead; push consent and a device.
    const quinn = user('quinn');
    const zone = 'Asia/Kolkata';
    const endMs = Math.ceil((clock.nowMs() + 60_000) / 60_000) * 60_000;
    await putPreferences(runtime, quinn, { timeZone: zone, quietHours: { start: clockTime(endMs - 120_000, zone), end: clockTime(endMs, zone) } });
    expect((await api(quinn, 'POST', '/devices', { platform: 'apns', token: pushToken('q1'), locale: 'en-GB' })).status).toBe(201);
    expect((await api(quinn, 'PUT', '/push-consent', { version: '2026-11' })).status).toBe(200);
    const socket = await connect(quinn);
    const quiet = aMention({ recipients: ['quinn'], priority: 'info' });
    const urgent = aMention({ recipients: ['quinn'] });

    // Act
    await publish(events, 'mention.created', quiet, urgent);
    await drained();
    const held = await decisionsOf(quinn, quiet.id);
    clockOffsetMs += endMs - clock.nowMs();
    runtime.scheduler.rearm();
    await socket.waitFor('notification', 2, { attempts: 200, intervalMs: 50 });
    await pollUntil(() => runtime.channels.sns.receivedBy(pushToken('q1')).length >= 2, POLL, 'both pushes sent');
    await drained();

    // Assess
    // The email and SMS channels decide too: mentions go by email or text only where the user switched them on.
    expect([...held].sort()).toEqual(['email suppressed channel_off', 'fanout written', 'intake accepted', 'live held quiet_hours', 'push held quiet_hours', 'sms suppressed channel_off']);
    const after = await decisionsOf(quinn, quiet.id);
    expect(after).toEqual(expect.arrayContaining(['live held quiet_hours', 'push held quiet_hours', 'release released', 'push sent']));
    expect(await decisionsOf(quinn, urgent.id)).toEqual(expect.arrayContaining(['intake accepted', 'fanout written', 'live admitted', 'live pushed', 'push sent']));
    const text = formatWhy({ ...quinn, eventId: quiet.id }, await why({ ...quinn, eventId: quiet.id }));
    expect(text).toContain("held: the user's quiet hours (released when they end)");
  });

  it('a push denied for lack of consent', async () => {
    // Arrange: a device but no consent (push is default-deny)
    const dora = user('dora');
    expect((await api(dora, 'POST', '/devices', { platform: 'apns', token: pushToken('d1'), locale: 'en-GB' })).status).toBe(201);
    const mention = aMention({ recipients: ['dora'] });

    // Act
    await publish(events, 'mention.created', mention);
    await drained();

    // Assess
    expect(await decisionsOf(dora, mention.id)).toEqual(expect.arrayContaining(['intake accepted', 'fanout written', 'push denied no_consent', 'live not_connected offline']));
    expect(runtime.channels.sns.receivedBy(pushToken('d1'))).toEqual([]);
    expect(formatWhy({ ...dora, eventId: mention.id }, await why({ ...dora, eventId: mention.id }))).toContain('denied: no push consent (default deny)');
  });

  it('a duplicate publish: accepted twice, written and pushed once, the second marked a duplicate', async () => {
    const dupe = user('dupe');
    const socket = await connect(dupe);
    const mention = aMention({ recipients: ['dupe'] });
    await publish(events, 'mention.created', mention);
    await socket.waitFor('notification');
    await drained();
    await publish(events, 'mention.created', mention);
    await drained();

    const decisions = await decisionsOf(dupe, mention.id);
    expect(decisions.filter((decision) => decision === 'intake accepted')).toHaveLength(2);
    expect(decisions.filter((decision) => decision === 'intake deduplicated duplicate_event')).toHaveLength(1);
    expect(decisions.filter((decision) => decision === 'fanout written')).toHaveLength(1);
    expect(decisions.filter((decision) => decision === 'live pushed')).toHaveLength(1);
    expect(socket.ofType('notification')).toHaveLength(1);
  });

  it('a rate-limited burst: two pushed, the rest held for the digest, each event says which', async () => {
    const burst = user('burst');
    const socket = await connect(burst);
    const mentions = Array.from({ length: 4 }, () => aMention({ recipients: ['burst'] }));
    await publish(events, 'mention.created', ...mentions);
    await socket.waitFor('notification', 2);
    await drained();

    const live = await Promise.all(mentions.map(async (mention) => (await decisionsOf(burst, mention.id)).filter((decision) => decision.startsWith('live '))));
    expect(live.filter((decisions) => decisions.includes('live pushed'))).toHaveLength(2);
    expect(live.filter((decisions) => decisions.includes('live held rate_limited'))).toHaveLength(2);
    const limited = mentions[live.findIndex((decisions) => decisions.includes('live held rate_limited'))]!;
    expect(formatWhy({ ...burst, eventId: limited.id }, await why({ ...burst, eventId: limited.id }))).toContain("held: the user's rate limit");
  });

  it('an erased recipient: linkable before, unlinkable after (no id in clear, "erased" answered), later events dropped', { timeout: 60_000 }, async () => {
    // Arrange: a decision about erin, then her erasure through the operator command's code path
    const erinId = 'erin-audit-x7q';
    const erin = user(erinId);
    const before = aMention({ recipients: [erinId, 'dave'] });
    await publish(events, 'mention.created', before);
    await drained();
    expect(await decisionsOf(erin, before.id)).toEqual(expect.arrayContaining(['fanout written']));
    const target = await localTarget(dataDir);
    try {
      await eraseUser(target, erin, { graceMs: 200, schedules: runtime.scheduler, audit: await auditErasureOptions(target, { dataDir }) });
    } finally {
      target.destroy();
    }

    // Act: a mention to erin and dave after the erasure
    const after = aMention({ recipients: [erinId, 'dave'] });
    await publish(events, 'mention.created', after);
    await drained();

    // Assess
    const text = await archiveText();
    expect(text).not.toContain(erinId);
    const answerBefore = await why({ ...erin, eventId: before.id });
    expect(answerBefore).toMatchObject({ status: 'erased' });
    expect(summary(answerBefore.decisions)).toEqual(['intake accepted']);
    expect(formatWhy({ ...erin, eventId: before.id }, answerBefore)).toContain('the user was erased (');
    const answerAfter = await why({ ...erin, eventId: after.id });
    expect(answerAfter).toMatchObject({ status: 'erased', erasedRecipientDecisions: 1 });
    expect(await decisionsOf(user('dave'), after.id)).toEqual(expect.arrayContaining(['fanout written']));
    const dropped = text.split('\n').filter((line) => line.includes('"reason":"erased_user"'));
    expect(dropped).toHaveLength(1);
    expect(dropped[0]).toContain('"user":"erased"');
    // Nor does the delivery trace table get an item naming her again.
    const items = (await runtime.documentClient.send(new ScanCommand({ TableName: runtime.dynamo.tableNames.idempotency }))).Items ?? [];
    expect(items.filter((item) => JSON.stringify(item).includes(erinId))).toEqual([]);
  });

  it('hostile ids (__proto__, unicode, newlines, JSON-breaking characters) stay single, escaped, verifiable lines and answer why', async () => {
    const tenant = 'tën"ant\n{"v":1}';
    const recipients = ['__proto__', 'constructor', 'ü"\n}{\u2028', 'a\\"},{"kind":"erasure'];
    const eventId = '__proto__"\n{"seq":0}\u2029🦄';
    await publish(events, 'mention.created', aMention({ id: eventId, tenantId: tenant, recipients }));
    await drained();

    for (const userId of recipients) expect(await decisionsOf(user(userId, tenant), eventId), userId).toEqual(expect.arrayContaining(['intake accepted', 'fanout written']));
    const report = await verifyAuditTrail(localArchiveReader(dataDir).lines());
    expect(report.problems).toEqual([]);
    const text = await archiveText();
    for (const clear of [...recipients.slice(2), eventId]) expect(text).not.toContain(clear);
  });

  it('an archive outage: decisions wait in the backlog queue (counted), and are in the archive once it is back', { timeout: 60_000 }, async () => {
    const olga = user('olga');
    const mention = aMention({ recipients: ['olga'] });
    const buffered = runtime.audit.counts.buffered;
    runtime.audit.setSinkAvailable(false);
    try {
      await publish(events, 'mention.created', mention);
      const { urgent, push, intake } = runtime.queues;
      await pollUntil(() => [urgent, push, ...Object.values(intake)].every((queue) => queue.peek().length === 0) && runtime.audit.counts.buffered > buffered, POLL, 'pipeline done, records buffered');
      expect((await why({ ...olga, eventId: mention.id })).decisions).toEqual([]);
    } finally {
      runtime.audit.setSinkAvailable(true);
    }
    await drained();
    expect(await decisionsOf(olga, mention.id)).toEqual(expect.arrayContaining(['intake accepted', 'fanout written', 'push denied no_consent']));
    expect(runtime.audit.counts.unbuffered).toBe(0);
    expect((await verifyAuditTrail(localArchiveReader(dataDir).lines())).ok).toBe(true);
  });

  it('audit verify fails on a changed byte, a deleted line or two swapped lines, and names the place (library and CLI)', { timeout: 60_000 }, async () => {
    // Arrange: the archive so far, copied into three tampered data dirs
    await publish(events, 'comment.created', aComment('tammy'));
    await drained();
    const lines = (await archiveText()).split('\n').filter((line) => line.length > 0);
    expect(lines.length).toBeGreaterThan(20);
    const middle = Math.floor(lines.length / 2);
    const tampered: Record<string, string[]> = {
      changed: lines.map((line, index) => (index === middle ? line.replace('"attempt":1', '"attempt":2') : line)),
      deleted: lines.filter((_, index) => index !== middle),
      swapped: lines.map((line, index) => (index === middle ? lines[middle + 1]! : index === middle + 1 ? lines[middle]! : line)),
    };
    const root = await mkdtemp(join(tmpdir(), 'audit-tampered-'));
    try {
      // Act + Assess
      expect((await verifyAuditTrail(localArchiveReader(dataDir).lines())).ok).toBe(true);
      for (const [kind, content] of Object.entries(tampered)) {
        const dir = join(root, kind);
        await mkdir(join(dir, 'audit'), { recursive: true });
        await writeFile(join(dir, 'audit', 'audit.jsonl'), `${content.join('\n')}\n`);
        const report = await verifyAuditTrail(localArchiveReader(dir).lines());
        expect(report.ok, kind).toBe(false);
        expect(report.problems[0]!.line, kind).toBe(middle + 1);
        if (kind === 'deleted') expect(report.problems[0]!.message).toContain('missing before this line');
        if (kind === 'swapped') expect(report.problems.map((problem) => problem.line)).toEqual([middle + 1, middle + 2]);
      }
      const cli = await auditCli(['verify'], join(root, 'swapped'));
      expect(cli.status).toBe(1);
      expect(cli.stdout).toContain(`FAILED`);
      expect(cli.stdout).toContain(`audit.jsonl:${middle + 2}: segment`);
      const ok = await auditCli(['verify'], dataDir);
      expect(ok.status, ok.stderr).toBe(0);
      expect(ok.stdout).toMatch(/^OK: \d+ records/);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it('npm run audit -- why answers from the archive (CLI, against the running runtime of DATA_DIR)', { timeout: 30_000 }, async () => {
    const dora = user('cli-dora');
    const mention = aMention({ recipients: ['cli-dora'] });
    await publish(events, 'mention.created', mention);
    await drained();
    const cli = await auditCli(['why', '--tenant', dora.tenantId, '--user', dora.userId, '--event', mention.id], dataDir);
    expect(cli.status, cli.stderr).toBe(0);
    expect(cli.stdout).toContain('denied: no push consent (default deny)');
    expect(cli.stdout).toContain('written');
  });
});

