/**
 * Delivery guarantee per type, end to end: the local runtime as a child process with a team catalog
 * (CATALOG_ENTRY) holding an at-least-once `security.alert`, killed with SIGKILL while its email
 * consumer waits on SES (the local SES stand-in holds the call unanswered) and restarted on the same
 * DATA_DIR. The alert is sent once after the restart; an at-most-once mention killed the same way is
 * lost, as documented (docs/channels.md#delivery-guarantee).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { keys } from '../../src/core/model/keys.js';
import { loadLocalSecrets } from '../../src/local/signing-key.js';
import { localTarget } from '../../src/ops/targets.js';
import { aMention, putEntry, uniqueEventId } from '../support/events.js';
import { call, freePort } from '../support/http.js';
import { Runtime } from '../support/kill-restart-load.js';
import { pollUntil } from '../support/poll-until.js';

const FIXTURE = join(import.meta.dirname, 'fixtures', 'alerts-catalog.ts');
const ALICE = { tenantId: 'acme', userId: 'alice', email: 'alice@example.test' };
const BOB = { tenantId: 'acme', userId: 'bob', email: 'bob@example.test' };

interface Mailbox {
  mails: { to: string[]; subject: string }[];
  stalled: number;
}

describe('at-least-once: killed between the claim and the provider answer', () => {
  it('the at-least-once alert is sent once after the restart; the at-most-once mention killed the same way is not sent', { timeout: 120_000 }, async () => {
    // Prepare: the runtime in a child process (SIGKILL stops everything), a 1 s function timeout (6 s visibility, 2 s sending timeout).
    const parent = await mkdtemp(join(tmpdir(), 'at-least-once-e2e-'));
    const dataDir = join(parent, 'data');
    const [port, wsPort] = [await freePort(), await freePort()];
    const http = `http://127.0.0.1:${port}`;
    const runtime = new Runtime({ ...process.env, PORT: String(port), WS_PORT: String(wsPort), DATA_DIR: dataDir, DATA_DIR_PARENT: parent, FUNCTION_TIMEOUT_MS: '1000', CHANNEL_BATCH_WINDOW_MS: '100', CATALOG_ENTRY: FIXTURE, LOG_LEVEL: 'WARN' });
    let events: EventBridgeClient | undefined;
    try {
      await runtime.start();
      const secrets = await loadLocalSecrets(dataDir);
      const [token, bobToken] = [await secrets.issueToken({ ...ALICE, ttlSeconds: 3600 }), await secrets.issueToken({ ...BOB, ttlSeconds: 3600 })];
      expect((await call(http, 'PUT', '/email-address', { token })).status).toBe(200);
      expect((await call(http, 'PUT', '/email-address', { token: bobToken })).status).toBe(200);
      // The mention is at-most-once: bob switches its email on, so it is emailed at once (in parallel with alice's alert).
      expect((await call(http, 'PUT', '/preferences', { token: bobToken, body: JSON.stringify({ timeZone: 'UTC', channels: { 'mention.created': { email: true } } }) })).status).toBe(200);
      expect((await call(http, 'POST', '/_dev/mail/stall', { body: JSON.stringify({ count: 2 }) })).status).toBe(204);
      // The dev mailbox answers the mail of its token's verified address: alice's and bob's together.
      const mailbox = async (): Promise<Mailbox> => {
        const [alices, bobs] = [(await call(http, 'GET', '/_dev/mail', { token })).body as Mailbox, (await call(http, 'GET', '/_dev/mail', { token: bobToken })).body as Mailbox];
        return { mails: [...alices.mails, ...bobs.mails], stalled: alices.stalled };
      };
      const alert = { id: uniqueEventId('alert'), tenantId: 'acme', actor: { id: 'security' }, recipients: ['alice'], data: { kind: 'new_sign_in' } };
      const mention = aMention({ recipients: ['bob'] });

      // Act: both emails reach SES, which never answers; the runtime is killed there and restarted.
      events = new EventBridgeClient({ endpoint: http, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 1 });
      await events.send(new PutEventsCommand({ Entries: [putEntry('security.alert', alert), putEntry('mention.created', mention)] }));
      await pollUntil(async () => (await mailbox()).stalled === 2, { attempts: 200, intervalMs: 50 }, 'both sends waiting on SES');
      const itemOf = async (userToken: string) => ((await call(http, 'GET', '/notifications', { token: userToken })).body as { items: { id: string }[] }).items[0]!.id;
      const ids = { alice: await itemOf(token), bob: await itemOf(bobToken) };
      const claimOf = async (userId: 'alice' | 'bob') => {
        const target = await localTarget(dataDir);
        try {
          return (await target.documentClient.send(new GetCommand({ TableName: target.idempotencyTable, Key: { id: keys.channelSendId('acme', userId, 'email', ids[userId]) } }))).Item;
        } finally {
          target.destroy();
        }
      };
      const beforeKill = { alert: await claimOf('alice'), mention: await claimOf('bob') };
      await runtime.kill();
      events.destroy();
      await runtime.start();
      await pollUntil(async () => (await mailbox()).mails.length >= 1, { attempts: 400, intervalMs: 50 }, 'the alert sent after the restart');
      // Long enough for any second copy: past the visibility timeout (6 s) of a retry.
      await new Promise((resolve) => setTimeout(resolve, 7_000));
      const after = await mailbox();
      const afterRestart = { alert: await claimOf('alice'), mention: await claimOf('bob') };

      // Assess
      expect(beforeKill.alert).toMatchObject({ status: 'sending' });
      expect(beforeKill.mention?.status).toBeUndefined();
      expect(after.mails).toHaveLength(1);
      expect(after.mails[0]).toMatchObject({ to: ['alice@example.test'], subject: 'New notification' });
      expect(afterRestart.alert).toMatchObject({ status: 'sent' });
      expect(afterRestart.mention).toBeDefined();
    } finally {
      events?.destroy();
      await runtime.kill();
      await rm(parent, { recursive: true, force: true });
    }
  });
});
