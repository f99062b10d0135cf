/**
 * Erasure by role, not by value (issue 27), end to end on the local runtime: events published with
 * the real EventBridge SDK, the erasure run as `npm run erase` runs it (src/ops/erase.ts on the
 * runtime's DATA_DIR), the bystanders read over REST and in the table before and after.
 *
 * 1. Erasing user `p42` keeps a bystander's notification whose `data.postId` is "p42" byte for byte,
 *    and deletes the notification p42 authored in that bystander's inbox (README: erasure).
 * 2. Erasing user `UTC` keeps a bystander's preferences holding `timeZone: "UTC"` byte for byte.
 * An item of no known kind is kept, counted in the report and logged at WARN.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { DynamoDBClient, GetItemCommand, PutItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErasureReport } from '../../src/core/privacy/erasure.js';
import { keys, type TableKey } from '../../src/core/model/keys.js';
import type { Notification } from '../../src/core/model/notification.js';
import type { UserRef } from '../../src/core/model/user.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../src/local/embedded-dynamo.js';
import type { TableName } from '../../src/table-specs.js';
import { aMention } from '../support/events.js';
import { call } from '../support/http.js';
import { pollUntil } from '../support/poll-until.js';
import { inboxOf, pipelineDrained, publish, putPreferences, startE2eRuntime, stopE2eRuntime, type E2eRuntime } from '../support/schedules-e2e.js';

const run = promisify(execFile);
const TENANT = 'acme';
const POLL = { attempts: 400, intervalMs: 25 };
const user = (userId: string): UserRef => ({ tenantId: TENANT, userId });

let started: E2eRuntime;
let raw: DynamoDBClient;

beforeAll(async () => {
  started = await startE2eRuntime('erase-by-role-e2e-', { infoBatchWindowMs: 20 });
  raw = new DynamoDBClient({ endpoint: started.runtime.dynamo.endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
});

afterAll(async () => {
  raw?.destroy();
  await stopE2eRuntime(started ?? {});
});

/** `npm run erase -- --tenant acme --user <id> --json` on the runtime's DATA_DIR (a short grace). */
async function eraseWithCli(userId: string): Promise<{ report: ErasureReport; stderr: string }> {
  const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'src/ops/erase.ts', '--tenant', TENANT, '--user', userId, '--json'], {
    env: { ...process.env, DATA_DIR: started.dataDir },
  });
  return { report: JSON.parse(stdout) as ErasureReport, stderr };
}

/** The stored item as DynamoDB holds it (attribute values, not the document client's JS values). */
async function storedItem(table: TableName, key: TableKey): Promise<Record<string, AttributeValue> | undefined> {
  const output = await raw.send(new GetItemCommand({ TableName: started.runtime.dynamo.tableNames[table], Key: { pk: { S: key.pk }, sk: { S: key.sk } }, ConsistentRead: true }));
  return output.Item;
}

async function get(path: string, who: UserRef): Promise<string> {
  const answer = await call(started.runtime.endpoints.http, 'GET', path, { token: await started.runtime.secrets.issueToken(who) });
  expect(answer.status).toBe(200);
  return answer.text;
}

describe('npm run erase decides by role, never by value', () => {
  it('erasing p42 keeps a bystander\'s notification whose data.postId is "p42" byte for byte, and removes what p42 authored', async () => {
    // Prepare: bea gets a mention from cy about post "p42", and one from p42 itself; p42 has an inbox of its own.
    const { events, runtime } = started;
    const aboutPost = aMention({ actor: { id: 'cy', name: 'Cy' }, recipients: ['bea'], data: { postId: 'p42', excerpt: 'see p42' } });
    const byP42 = aMention({ actor: { id: 'p42', name: 'P' }, recipients: ['bea'], data: { postId: 'x1', excerpt: 'hi bea' } });
    await publish(events, 'mention.created', aboutPost, byP42, aMention({ actor: { id: 'cy' }, recipients: ['p42'], data: { postId: 'p42', excerpt: 'yours' } }));
    await pipelineDrained(runtime, POLL);
    const inbox = await pollUntil(async () => ((await inboxOf(runtime, user('bea'))).length === 2 ? inboxOf(runtime, user('bea')) : undefined), POLL, 'bea has both mentions');
    const kept = inbox.find((item) => item.actor.id === 'cy')!;
    const authored = inbox.find((item) => item.actor.id === 'p42')!;
    const keptKey = keys.inboxItem(TENANT, 'bea', kept.id);
    const storedBefore = await storedItem('inbox', keptKey);
    const restBefore = JSON.stringify((JSON.parse(await get('/notifications?limit=100', user('bea'))) as { items: Notification[] }).items.find((item) => item.id === kept.id));
    expect(storedBefore?.data).toEqual({ M: { postId: { S: 'p42' }, excerpt: { S: 'see p42' } } });

    // Act
    const { report } = await eraseWithCli('p42');

    // Assess: the bystander's notification is what it was, over REST and in the table; p42's are gone.
    const after = (JSON.parse(await get('/notifications?limit=100', user('bea'))) as { items: Notification[] }).items;
    expect(after.map((item) => item.id)).toEqual([kept.id]);
    expect(JSON.stringify(after[0])).toBe(restBefore);
    expect(await storedItem('inbox', keptKey)).toEqual(storedBefore);
    expect(await storedItem('inbox', keys.inboxItem(TENANT, 'bea', authored.id))).toBeUndefined();
    expect(await inboxOf(runtime, user('p42'))).toEqual([]);
    expect(report.removed['inbox.authoredNotification']).toBe(1);
    expect(report.removed['inbox.inboxItem']).toBe(1);
    // Every item the runtime wrote is of a kind the erasure knows.
    expect(report.unknownKept).toEqual({});
  });

  it('erasing UTC keeps a bystander\'s preferences holding timeZone "UTC" byte for byte; an item no key builder writes is kept', async () => {
    // Prepare: dee saves preferences in UTC; the user `UTC` has a notification and preferences of its own.
    const { events, runtime } = started;
    await putPreferences(runtime, user('dee'), { timeZone: 'UTC', quietHours: { start: '22:00', end: '07:00' }, mutedTypes: ['comment.created'], liveDelivery: {} });
    await putPreferences(runtime, user('UTC'), { timeZone: 'Europe/Berlin', quietHours: null, mutedTypes: [], liveDelivery: {} });
    await publish(events, 'mention.created', aMention({ actor: { id: 'dee' }, recipients: ['UTC'], data: { postId: 'UTC', excerpt: 'UTC' } }));
    await pipelineDrained(runtime, POLL);
    await pollUntil(async () => (await inboxOf(runtime, user('UTC'))).length === 1, POLL, 'UTC has a mention');
    const restBefore = await get('/preferences', user('dee'));
    const storedBefore = await storedItem('graph', keys.preferences(TENANT, 'dee'));
    expect(storedBefore?.timeZone).toEqual({ S: 'UTC' });
    // An item no builder of keys.ts writes, in the user's own partition family: never deleted on a guess.
    const stray = { pk: { S: `${keys.profile(TENANT, 'UTC').pk}#LEGACY` }, sk: { S: 'x' }, owner: { S: 'UTC' } };
    await raw.send(new PutItemCommand({ TableName: runtime.dynamo.tableNames.graph, Item: stray }));

    // Act
    const { report, stderr } = await eraseWithCli('UTC');

    // Assess
    expect(await get('/preferences', user('dee'))).toBe(restBefore);
    expect(await storedItem('graph', keys.preferences(TENANT, 'dee'))).toEqual(storedBefore);
    expect(await storedItem('graph', keys.preferences(TENANT, 'UTC'))).toBeUndefined();
    expect(await inboxOf(runtime, user('UTC'))).toEqual([]);
    expect(report.removed['graph.profileOrPreferences']).toBe(1);
    // Outside every partition the user's footprint leads to: never read (no scan), never deleted on a guess.
    expect(report.unknownKept).toEqual({});
    expect(await storedItem('graph', { pk: stray.pk.S, sk: 'x' })).toEqual(stray);
    expect(stderr).not.toContain('"level":"ERROR"');
  });
});
