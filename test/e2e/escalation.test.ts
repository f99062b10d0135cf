/**
 * Escalation end to end on the local runtime: real PutEvents, the fan-out putting a delayed job on
 * the email queue (SQS DelaySeconds on the local SQS), the REST actions of the user meanwhile, and
 * the real `@aws-sdk/client-sesv2` against the local SES stand-in. `mention.created` escalates to
 * email when still unseen; the runtime's ESCALATION_DELAY_SECONDS shortens its 15 minutes to 3 s.
 */
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserRef } from '../../src/core/model/user.js';
import type { TraceEntry } from '../../src/core/ports/trace.js';
import { explainEvent } from '../../src/ops/explain.js';
import { localTarget, type OpsTarget } from '../../src/ops/targets.js';
import type { LocalRuntime } from '../../src/local/runtime.js';
import { aMention } from '../support/events.js';
import { call } from '../support/http.js';
import { pollUntil } from '../support/poll-until.js';
import { inboxOf, publish, putPreferences, sleep, startE2eRuntime, stopE2eRuntime } from '../support/schedules-e2e.js';

const DELAY_SECONDS = 3;
const POLL = { attempts: 400, intervalMs: 50 };
const user = (userId: string): UserRef => ({ tenantId: 'acme', userId });
const emailOf = (who: UserRef) => `${who.userId}@example.test`;

let dataDir: string;
let runtime: LocalRuntime;
let events: EventBridgeClient;
let target: OpsTarget;

beforeAll(async () => {
  ({ dataDir, runtime, events } = await startE2eRuntime('escalation-e2e-', { escalationDelaySeconds: DELAY_SECONDS, channelBatchWindowMs: 100 }));
  target = await localTarget(dataDir);
});

afterAll(async () => {
  await stopE2eRuntime({ dataDir, runtime, events });
});

async function api(who: UserRef, method: string, path: string, body?: unknown) {
  const token = await runtime.secrets.issueToken({ ...who, email: emailOf(who) });
  return call(runtime.endpoints.http, method, path, { token, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
}

/** A verified email address on record (the escalation's channel); no push device. */
async function withEmail(who: UserRef): Promise<void> {
  expect((await api(who, 'PUT', '/email-address')).status).toBe(200);
}

const mailTo = (who: UserRef) => runtime.channels.ses.mailTo(emailOf(who));

/** The email stage's decision of the escalation (the direct email job says `channel_off`: mentions do not email by default). */
async function escalationDecision(who: UserRef, eventId: string): Promise<TraceEntry> {
  return pollUntil(async () => (await explainEvent(target, 'acme', who.userId, eventId)).find((entry) => entry.stage === 'email' && (entry.outcome === 'escalated' || entry.outcome.startsWith('escalation_'))), POLL, `escalation decision of ${who.userId}`);
}

async function onlyItemOf(who: UserRef): Promise<string> {
  const items = await pollUntil(async () => {
    const found = await inboxOf(runtime, who);
    return found.length === 1 ? found : undefined;
  }, POLL, `inbox item of ${who.userId}`);
  return items[0]!.id;
}

describe('escalation: an unseen mention emails after its delay', () => {
  it('unseen after the delay: one email; seen before: none; read-all before: none', { timeout: 60_000 }, async () => {
    // Prepare
    const [erin, frank, grace] = [user('erin'), user('frank'), user('grace')];
    await Promise.all([erin, frank, grace].map(withEmail));
    const mentions = { erin: aMention({ recipients: ['erin'] }), frank: aMention({ recipients: ['frank'] }), grace: aMention({ recipients: ['grace'] }) };

    // Act: three mentions; frank opens the bell (seen-all), grace reads all, both well inside the delay.
    const publishedAt = Date.now();
    await publish(events, 'mention.created', mentions.erin, mentions.frank, mentions.grace);
    const [, frankItem, graceItem] = await Promise.all([onlyItemOf(erin), onlyItemOf(frank), onlyItemOf(grace)]);
    expect((await api(frank, 'POST', '/notifications/seen-all', { upTo: frankItem })).status).toBe(200);
    expect((await api(grace, 'POST', '/notifications/read-all', { upTo: graceItem })).status).toBe(200);
    const actedWithinMs = Date.now() - publishedAt;
    const [erinDecision, frankDecision, graceDecision] = await Promise.all([escalationDecision(erin, mentions.erin.id), escalationDecision(frank, mentions.frank.id), escalationDecision(grace, mentions.grace.id)]);
    await pollUntil(() => runtime.queues.email.peek().length === 0, POLL, 'email queue empty');
    await sleep(300);

    // Assess
    expect(actedWithinMs).toBeLessThan(DELAY_SECONDS * 1000);
    expect(erinDecision.outcome).toBe('escalated');
    expect(erinDecision.atMs - publishedAt).toBeGreaterThanOrEqual(DELAY_SECONDS * 1000 - 1_000);
    expect(mailTo(erin)).toHaveLength(1);
    expect(mailTo(erin)[0]).toMatchObject({ subject: 'Bob mentioned you' });
    expect(frankDecision.outcome).toBe('escalation_seen');
    expect(mailTo(frank)).toHaveLength(0);
    expect(graceDecision.outcome).toBe('escalation_read');
    expect(mailTo(grace)).toHaveLength(0);
  });

  it('archived or deleted meanwhile cancels it; escalation switched off in preferences sends none', { timeout: 60_000 }, async () => {
    // Prepare
    const [hana, ivan, jude] = [user('hana'), user('ivan'), user('jude')];
    await Promise.all([hana, ivan, jude].map(withEmail));
    await putPreferences(runtime, jude, { timeZone: 'UTC', channels: { 'mention.created': { escalation: false } } });
    const mentions = { hana: aMention({ recipients: ['hana'] }), ivan: aMention({ recipients: ['ivan'] }), jude: aMention({ recipients: ['jude'] }) };

    // Act
    await publish(events, 'mention.created', mentions.hana, mentions.ivan, mentions.jude);
    const [hanaItem, ivanItem] = await Promise.all([onlyItemOf(hana), onlyItemOf(ivan), onlyItemOf(jude)]);
    expect((await api(hana, 'POST', `/notifications/${hanaItem}/archive`)).status).toBe(204);
    expect((await api(ivan, 'DELETE', `/notifications/${ivanItem}`)).status).toBeLessThan(300);
    const decisions = await Promise.all([escalationDecision(hana, mentions.hana.id), escalationDecision(ivan, mentions.ivan.id), escalationDecision(jude, mentions.jude.id)]);
    await pollUntil(() => runtime.queues.email.peek().length === 0, POLL, 'email queue empty');

    // Assess
    expect(decisions.map((decision) => decision.outcome)).toEqual(['escalation_cancelled', 'escalation_cancelled', 'escalation_off']);
    for (const who of [hana, ivan, jude]) expect(mailTo(who)).toHaveLength(0);
  });
});
