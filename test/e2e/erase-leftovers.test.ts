/**
 * What erasure and export used to leave behind (issue 27), end to end on the local runtime: devices
 * registered over REST (the real SNS SDK against the local SNS stand-in), channels held by quiet
 * hours (the local scheduler on the runtime's clock), `npm run erase` and `npm run export` run as an
 * operator runs them (on the runtime's DATA_DIR).
 *
 * 1. The SNS platform endpoints of the user's devices go with the erasure.
 * 2. A quiet-hours hold released while the erasure runs neither pushes, emails nor goes live to them.
 * 3. An erasure cut short after its first batch keeps neither their address nor their devices.
 * 4. The export holds their devices (never the token), consent, address, unsubscribes, per-item
 *    state (an item marked unread reads unread) and the celebrity-feed items the API shows.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SNSClient } from '@aws-sdk/client-sns';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SnsPushProvider } from '../../src/adapters/sns/sns-push-provider.js';
import { ChannelRepository } from '../../src/adapters/dynamo/channel-repository.js';
import { UserEraser } from '../../src/adapters/dynamo/user-eraser.js';
import { userExportSchema } from '../../src/contract/user-export.js';
import { erasureRecordId, type ErasureReport } from '../../src/core/privacy/erasure.js';
import { keys } from '../../src/core/model/keys.js';
import type { Clock } from '../../src/core/ports/clock.js';
import type { UserRef } from '../../src/core/model/user.js';
import { LOCAL_REGION } from '../../src/local/embedded-dynamo.js';
import { aComment, aFollow, aMention, aPost } from '../support/events.js';
import { call } from '../support/http.js';
import { pollUntil } from '../support/poll-until.js';
import { inboxOf, pipelineDrained, publish, putPreferences, startE2eRuntime, stopE2eRuntime, type E2eRuntime } from '../support/schedules-e2e.js';
import { TestSocket } from '../support/ws-client.js';

const run = promisify(execFile);
const TENANT = 'acme';
const POLL = { attempts: 400, intervalMs: 25 };
const user = (userId: string): UserRef => ({ tenantId: TENANT, userId });
const pushToken = (name: string) => `${name}${'0'.repeat(64 - name.length)}`;

let started: E2eRuntime;
const sockets: TestSocket[] = [];
/** The runtime's clock: the wall clock plus an offset the test moves to a quiet window's end. */
let clockOffsetMs = 0;
const clock: Clock = { nowMs: () => Date.now() + clockOffsetMs };

beforeAll(async () => {
  started = await startE2eRuntime('erase-leftovers-e2e-', { infoBatchWindowMs: 20, channelBatchWindowMs: 50, celebrityThreshold: 2, feedShards: 2 }, { clock });
});

afterAll(async () => {
  await stopE2eRuntime(started ?? {}, sockets);
});

const tokenOf = (who: UserRef) => started.runtime.secrets.issueToken({ ...who, email: `${who.userId}@example.test` });

async function api(who: UserRef, method: string, path: string, body?: unknown) {
  return call(started.runtime.endpoints.http, method, path, { token: await tokenOf(who), ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
}

/** Devices, consent and address as an app registers them. */
async function registerChannels(who: UserRef, tokens: { platform: 'apns' | 'fcm'; token: string; locale?: string }[]): Promise<void> {
  for (const device of tokens) expect((await api(who, 'POST', '/devices', device)).status).toBe(201);
  expect((await api(who, 'PUT', '/push-consent', { version: '2026-11' })).status).toBe(200);
  expect((await api(who, 'PUT', '/email-address')).status).toBe(200);
}

/** `npm run erase -- --tenant acme --user <id> --json` on the runtime's DATA_DIR. */
async function eraseWithCli(userId: string, extra: string[] = []): Promise<ErasureReport> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'src/ops/erase.ts', '--tenant', TENANT, '--user', userId, '--json', ...extra], { env: { ...process.env, DATA_DIR: started.dataDir } });
  return JSON.parse(stdout) as ErasureReport;
}

async function channelItems(who: UserRef): Promise<Record<string, unknown>[]> {
  const output = await started.runtime.documentClient.send(
    new QueryCommand({ TableName: started.runtime.dynamo.tableNames.graph, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': keys.channelStatePartition(TENANT, who.userId) }, ConsistentRead: true }),
  );
  return output.Items ?? [];
}

const endpointsNaming = (userId: string) => started.runtime.channels.sns.devices().filter((endpoint) => endpoint.customUserData.includes(`"userId":"${userId}"`));

/** Every queue holds nothing it would deliver now (a mention's escalation waits delayed on the email queue for 15 minutes). */
async function allQueuesDrained(): Promise<void> {
  const { urgent, info, promotion, intake, urgentIntake, push, email } = started.runtime.queues;
  await pollUntil(() => [urgent, info, promotion, push, email, ...Object.values(intake), ...Object.values(urgentIntake)].every((queue) => queue.peekUndelayed().length === 0), POLL, 'queues empty');
}

describe('erasure leaves nothing behind', () => {
  it('deletes the SNS platform endpoints of the user\'s devices; a bystander\'s endpoint stays', async () => {
    // Prepare
    await registerChannels(user('ida'), [{ platform: 'apns', token: pushToken('ida1') }, { platform: 'fcm', token: pushToken('ida2') }]);
    await registerChannels(user('ike'), [{ platform: 'apns', token: pushToken('ike1') }]);
    expect(endpointsNaming('ida')).toHaveLength(2);

    // Act
    await eraseWithCli('ida');

    // Assess
    expect(endpointsNaming('ida')).toEqual([]);
    expect(started.runtime.channels.sns.devices().filter((endpoint) => endpoint.token.startsWith('ida'))).toEqual([]);
    expect(endpointsNaming('ike')).toHaveLength(1);
    expect(await channelItems(user('ida'))).toEqual([]);
  });

  it('a quiet-hours hold released while the erasure runs pushes, emails and sends live nothing to the user', { timeout: 60_000 }, async () => {
    // Prepare: quinn is in quiet hours (UTC) until a minute from now; a mention and a comment are held on every channel.
    const quinn = user('quinn');
    await registerChannels(quinn, [{ platform: 'apns', token: pushToken('qn1') }]);
    const hhmm = (offsetMs: number) => new Date(clock.nowMs() + offsetMs).toISOString().slice(11, 16);
    await putPreferences(started.runtime, quinn, { timeZone: 'UTC', quietHours: { start: hhmm(-3_600_000), end: hhmm(120_000) } });
    const socket = await TestSocket.open(started.runtime.endpoints.ws, await tokenOf(quinn));
    sockets.push(socket);
    await publish(started.events, 'mention.created', aMention({ recipients: ['quinn'], priority: 'info' }));
    await publish(started.events, 'comment.created', aComment('quinn'));
    await pollUntil(async () => (await inboxOf(started.runtime, quinn)).length === 2, POLL, 'inbox items written');
    await allQueuesDrained();
    const heldFor = () => started.runtime.scheduler.list().filter((schedule) => schedule.payload.includes('quinn'));
    await pollUntil(() => heldFor().length >= 3, POLL, 'push, email and live holds scheduled');

    // Act: the erasure starts (a long grace keeps it running); once its tombstone exists, the quiet window ends.
    const erase = eraseWithCli('quinn', ['--direct', '--grace-ms', '4000']);
    const tombstone = { id: erasureRecordId(quinn) };
    await pollUntil(async () => (await started.runtime.documentClient.send(new GetCommand({ TableName: started.runtime.dynamo.tableNames.idempotency, Key: tombstone, ConsistentRead: true }))).Item !== undefined, POLL, 'tombstone written');
    clockOffsetMs += 3 * 3_600_000;
    started.runtime.scheduler.rearm();
    await pollUntil(() => heldFor().length === 0, POLL, 'holds released');
    await allQueuesDrained();
    await erase;

    // Assess
    expect(started.runtime.channels.sns.receivedBy(pushToken('qn1'))).toEqual([]);
    expect(started.runtime.channels.ses.mailTo('quinn@example.test')).toEqual([]);
    expect(socket.messages.filter((message) => message.type === 'notification' || message.type === 'digest')).toEqual([]);
  });

  it('an erasure cut short after its first batch keeps neither their address nor their devices', async () => {
    // Prepare
    const cy = user('cy');
    await registerChannels(cy, [{ platform: 'fcm', token: pushToken('cy1'), locale: 'fr-FR' }]);
    await new ChannelRepository(started.runtime.documentClient, started.runtime.dynamo.tableNames.graph).unsubscribeEmail(cy, 'comment.created');
    const sns = new SNSClient({ endpoint: started.runtime.channels.snsEndpoint, region: LOCAL_REGION, credentials: started.runtime.queues.sqsCredentials });
    const eraser = new UserEraser(
      {
        client: started.runtime.documentClient,
        tables: started.runtime.dynamo.tableNames,
        feedShards: 2,
        graceMs: 0,
        tombstoneTtlSeconds: 3_600,
        deletePushEndpoint: (arn) => new SnsPushProvider(sns, {}).deleteEndpoint(arn),
        afterBatch: () => {
          throw new Error('killed after the first batch');
        },
      },
      cy,
    );

    // Act
    await expect(eraser.run()).rejects.toThrow('killed after the first batch');
    sns.destroy();

    // Assess
    expect(await channelItems(cy)).toEqual([]);
    expect(endpointsNaming('cy')).toEqual([]);
  });
});

describe('npm run export', () => {
  it('holds devices without tokens, consent, address, unsubscribes, per-item state and the celebrity-feed items the API shows', async () => {
    // Prepare: eve has two devices, consent, an address and an unsubscribe; three mentions (all read, then one
    // marked unread, one archived, one deleted); she follows the celebrity cel (two followers), who posts.
    const eve = user('eve');
    await registerChannels(eve, [{ platform: 'apns', token: pushToken('eve1'), locale: 'en-GB' }, { platform: 'fcm', token: pushToken('eve2') }]);
    await new ChannelRepository(started.runtime.documentClient, started.runtime.dynamo.tableNames.graph).unsubscribeEmail(eve, 'comment.created');
    await publish(started.events, 'follow.created', aFollow('eve', 'cel'), aFollow('fox', 'cel'));
    await pipelineDrained(started.runtime, POLL);
    await publish(started.events, 'mention.created', aMention({ recipients: ['eve'] }), aMention({ recipients: ['eve'] }), aMention({ recipients: ['eve'] }));
    await pipelineDrained(started.runtime, POLL);
    await publish(started.events, 'post.published', aPost('cel'));
    await pipelineDrained(started.runtime, POLL);
    const shown = await pollUntil(async () => ((await inboxOf(started.runtime, eve)).length === 4 ? inboxOf(started.runtime, eve) : undefined), POLL, 'three mentions and a celebrity post');
    const celebrityPost = shown.find((item) => item.actor.id === 'cel')!;
    const [unread, archived, deleted] = shown.filter((item) => item.actor.id !== 'cel').map((item) => item.id) as [string, string, string];
    expect((await api(eve, 'POST', '/notifications/read-all')).status).toBeLessThan(300);
    expect((await api(eve, 'POST', `/notifications/${unread}/unread`)).status).toBeLessThan(300);
    expect((await api(eve, 'POST', `/notifications/${archived}/archive`)).status).toBeLessThan(300);
    expect((await api(eve, 'DELETE', `/notifications/${deleted}`)).status).toBeLessThan(300);
    const out = join(started.dataDir, 'eve-export.json');

    // Act
    await run(process.execPath, ['--import', 'tsx', 'src/ops/export.ts', '--tenant', TENANT, '--user', 'eve', '--out', out], { env: { ...process.env, DATA_DIR: started.dataDir } });

    // Assess
    const text = await readFile(out, 'utf8');
    expect(text).not.toContain(pushToken('eve1'));
    expect(text).not.toContain(pushToken('eve2'));
    const document = userExportSchema.parse(JSON.parse(text));
    expect(document.devices.map((device) => ({ platform: device.platform, locale: device.locale }))).toEqual(expect.arrayContaining([{ platform: 'apns', locale: 'en-GB' }, { platform: 'fcm', locale: null }]));
    expect(document.devices.every((device) => typeof device.createdAt === 'string' && typeof device.updatedAt === 'string')).toBe(true);
    expect(document.pushConsent).toMatchObject({ version: '2026-11' });
    expect(document.emailAddress).toBe('eve@example.test');
    expect(document.emailUnsubscribed).toEqual(['comment.created']);
    const byId = new Map(document.inbox.map((item) => [item.id, item]));
    expect(byId.get(unread)).toMatchObject({ read: false, archived: false, deleted: false });
    expect(byId.get(archived)).toMatchObject({ read: true, archived: true });
    expect(byId.get(deleted)).toMatchObject({ deleted: true });
    expect(byId.get(celebrityPost.id)).toMatchObject({ actor: { id: 'cel' }, source: 'celebrityFeed' });
  });
});
