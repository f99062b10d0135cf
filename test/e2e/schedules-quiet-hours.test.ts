/**
 * Quiet hours end to end (local runtime in-process, real PutEvents and WebSocket): the inbox item is
 * written at once, the push waits for the end of the window in the user's own zone; urgent bypasses.
 */
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/core/ports/clock.js';
import type { UserRef } from '../../src/core/model/user.js';
import { wallClockAt } from '../../src/core/preferences/time-zones.js';
import type { LocalRuntime } from '../../src/local/runtime.js';
import { aComment, aMention } from '../support/events.js';
import { pollUntil } from '../support/poll-until.js';
import { startE2eRuntime, stopE2eRuntime, inboxOf, pipelineDrained, publish, putPreferences } from '../support/schedules-e2e.js';
import { TestSocket } from '../support/ws-client.js';

const user = (userId: string): UserRef => ({ tenantId: 'acme', userId });

let dataDir: string;
let runtime: LocalRuntime;
let events: EventBridgeClient;
const sockets: TestSocket[] = [];
/** The runtime's clock: the wall clock plus an offset the test moves forward instead of waiting for a window's end. */
let clockOffsetMs = 0;
const clock: Clock = { nowMs: () => Date.now() + clockOffsetMs };

async function connect(who: UserRef): Promise<TestSocket> {
  const socket = await TestSocket.open(runtime.endpoints.ws, await runtime.secrets.issueToken(who));
  sockets.push(socket);
  return socket;
}


const pad = (value: number) => String(value).padStart(2, '0');

/** `HH:MM` of `instantMs` on the wall clock of `timeZone`. */
function clockTime(instantMs: number, timeZone: string): string {
  const wall = wallClockAt(instantMs, timeZone);
  return `${pad(wall.hour)}:${pad(wall.minute)}`;
}

beforeAll(async () => {
  ({ dataDir, runtime, events } = await startE2eRuntime('schedules-quiet-e2e-', { infoBatchWindowMs: 300 }, { clock }));
});

afterAll(async () => {
  await stopE2eRuntime({ dataDir, runtime, events }, sockets);
});

describe('quiet hours', () => {
  it('a user in quiet hours gets the inbox item at once and the push when the window ends in their zone', { timeout: 120_000 }, async () => {
    // Prepare: Asia/Kolkata (UTC+05:30); the window started a minute ago and ends at a local minute
    // boundary 1 to 2 minutes ahead of the runtime's clock (quiet hours have minute precision).
    const zone = 'Asia/Kolkata';
    const who = user('quinn');
    const endMs = Math.ceil((clock.nowMs() + 60_000) / 60_000) * 60_000;
    await putPreferences(runtime, who, { timeZone: zone, quietHours: { start: clockTime(endMs - 120_000, zone), end: clockTime(endMs, zone) } });
    const socket = await connect(who);

    // Act
    await publish(events, 'comment.created', aComment('quinn'));
    const inboxAtOnce = await pollUntil(async () => {
      const items = await inboxOf(runtime, who);
      return items.length > 0 ? items : undefined;
    }, { attempts: 200, intervalMs: 25 }, 'inbox item written at once');
    const inboxSeenAtMs = clock.nowMs();
    await pipelineDrained(runtime);
    const messagesDuringQuietHours = socket.messages.length;
    const checkedAtMs = clock.nowMs();
    // The window's end: the clock jumps there and the scheduler re-arms the held push against it.
    clockOffsetMs += endMs - clock.nowMs();
    runtime.scheduler.rearm();
    const [pushed] = await socket.waitFor('notification', 1, { attempts: 200, intervalMs: 50 });
    const pushedAtMs = clock.nowMs();

    // Assess
    expect(inboxSeenAtMs).toBeLessThan(endMs);
    expect(checkedAtMs).toBeLessThan(endMs);
    expect(messagesDuringQuietHours).toBe(0);
    expect(pushedAtMs).toBeGreaterThanOrEqual(endMs);
    expect(pushed!.notification.id).toBe(inboxAtOnce[0]!.id);
  });

  it('an urgent type bypasses quiet hours', async () => {
    // Prepare: quiet all day except one minute that is not now.
    const who = user('uma');
    const now = clock.nowMs();
    await putPreferences(runtime, who, { timeZone: 'Europe/Berlin', quietHours: { start: clockTime(now - 60_000, 'Europe/Berlin'), end: clockTime(now - 120_000, 'Europe/Berlin') } });
    const socket = await connect(who);

    // Act
    await publish(events, 'mention.created', aMention({ recipients: ['uma'] }));

    // Assess
    await socket.waitFor('notification');
  });
});

