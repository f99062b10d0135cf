/**
 * Two-way SMS with self-managed opt-outs on the local runtime (`SMS_SELF_MANAGED_OPT_OUTS=true`, the
 * construct's `channels.sms.selfManagedOptOuts`): the stand-in's number neither lists nor answers
 * keywords, so the inbound function's own opt-out list stops the texts, and it answers HELP, STOP and
 * START through the real `SendTextMessage`: once per number, keyword and day, within the day's texts
 * in all (`SMS_DAILY_LIMIT`), so a flood of HELPs costs at most that.
 */
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SMS_KEYWORD_ANSWERS_DEFAULT } from '../../src/core/channels/sms.js';
import type { UserRef } from '../../src/core/model/user.js';
import type { LocalRuntime } from '../../src/local/runtime.js';
import { aMention } from '../support/events.js';
import { call } from '../support/http.js';
import { pollUntil } from '../support/poll-until.js';
import { inboxOf, outOfMidnight, publish, putPreferences, sleep, startE2eRuntime, stopE2eRuntime } from '../support/schedules-e2e.js';

const POLL = { attempts: 400, intervalMs: 50 };
const HAL = '+14155550121';
const STRANGER = '+14155550122';

let dataDir: string;
let runtime: LocalRuntime;
let events: EventBridgeClient;
beforeAll(async () => {
  await outOfMidnight();
  // 4 texts a day in all: 3 answers and one mention, then nothing.
  ({ dataDir, runtime, events } = await startE2eRuntime('sms-self-managed-e2e-', { channelBatchWindowMs: 50, smsSelfManagedOptOuts: true, smsDailyLimit: 4 }));
}, 180_000);

afterAll(async () => {
  await stopE2eRuntime({ dataDir, runtime, events });
});

const fromPhone = async (from: string, body: string) => {
  expect((await call(runtime.endpoints.http, 'POST', '/_dev/sms/inbound', { body: JSON.stringify({ from, body }) })).status).toBe(200);
  await sleep(5);
};
const bodiesTo = (number: string) => runtime.channels.sms.textsTo(number).map((text) => text.body);

describe('SMS keywords with self-managed opt-outs', () => {
  it('the function answers HELP (once a day), STOP and START; its own list stops the texts; at the day\'s limit nothing more, not even answers', { timeout: 90_000 }, async () => {
    // Prepare: hal opts in and gets mentions by text.
    const hal: UserRef = { tenantId: 'acme', userId: 'hal' };
    await putPreferences(runtime, hal, { timeZone: 'UTC', channels: { 'mention.created': { sms: true } } });
    const token = await runtime.secrets.issueToken({ ...hal, phoneNumber: HAL });
    expect((await call(runtime.endpoints.http, 'PUT', '/sms', { token, body: JSON.stringify({ version: '2026-11' }) })).status).toBe(200);
    let mentions = 0;
    const mention = async () => {
      mentions += 1;
      await publish(events, 'mention.created', aMention({ recipients: ['hal'], data: { postId: `h${mentions}`, excerpt: `number ${mentions}` } }));
      await pollUntil(async () => (await inboxOf(runtime, hal)).length === mentions, POLL, 'the mention in the inbox');
      await pollUntil(() => runtime.queues.sms.peekUndelayed().length === 0 && runtime.queues.urgent.peek().length === 0, POLL, 'sms queue drained');
      await sleep(300);
    };

    // Act
    await fromPhone(HAL, 'HELP');
    await fromPhone(HAL, 'help');
    await fromPhone(HAL, 'STOP');
    const listedByService = runtime.channels.sms.isOptedOut(HAL);
    await mention();
    await fromPhone(HAL, 'START');
    await mention();
    await fromPhone(STRANGER, 'HELP');
    await mention();

    // Assess: one HELP answer, the STOP and START answers, the one mention after START; then the day's 4 texts are spent:
    // the stranger's HELP and the third mention go unanswered / unsent. The service never listed the number.
    expect(bodiesTo(HAL)).toEqual([SMS_KEYWORD_ANSWERS_DEFAULT.help, SMS_KEYWORD_ANSWERS_DEFAULT.stop, SMS_KEYWORD_ANSWERS_DEFAULT.start, 'Bob mentioned you: number 2']);
    expect(runtime.channels.sms.textsTo(HAL).some((text) => text.keywordResponse)).toBe(false);
    expect(bodiesTo(STRANGER)).toEqual([]);
    expect(listedByService).toBe(false);
  });
});
