/**
 * Issue 26, case 1 at its own scale (`npm run test:chaos`): with CELEBRITY_THRESHOLD=3, three users
 * follow each of N accounts (3N `follow.created` events, published 30 at a time), and 3 s later each
 * account posts once (`post.published`, `audience.followersOf`) while the follow intake is still
 * draining. Every follower must end with all N posts, exactly once. Run for N = 300 and 1,000; prints
 * the drain time (from the first post published to every queue empty) for the closing figures.
 * The short, deterministic version (follows held back until every post was fanned out) is in
 * test/e2e/follow-graph.test.ts.
 */
import { PutEventsCommand, type EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { describe, expect, it } from 'vitest';
import type { EventEnvelope } from '../../src/core/fanout/events.js';
import type { Notification } from '../../src/core/model/notification.js';
import { aFollow, aPost, putEntry } from '../support/events.js';
import { call } from '../support/http.js';
import { pipelineDrained, sleep, startE2eRuntime, stopE2eRuntime } from '../support/schedules-e2e.js';

async function publish(events: EventBridgeClient, entries: Array<[string, EventEnvelope]>): Promise<void> {
  for (let i = 0; i < entries.length; i += 30) {
    const calls = [0, 10, 20].map((offset) => entries.slice(i + offset, i + offset + 10)).filter((slice) => slice.length > 0);
    await Promise.all(
      calls.map(async (slice) => {
        // As a producer must: entries refused with ThrottlingException (the intake's back-pressure) are sent again after a pause.
        let pending = slice.map(([type, detail]) => putEntry(type, detail));
        for (let attempt = 0; pending.length > 0; attempt += 1) {
          if (attempt > 0) await sleep(Math.min(2_000, 100 * 2 ** attempt));
          const output = await events.send(new PutEventsCommand({ Entries: pending }));
          const refused = pending.filter((_, index) => output.Entries?.[index]?.ErrorCode !== undefined);
          const other = output.Entries?.find((entry) => entry.ErrorCode !== undefined && entry.ErrorCode !== 'ThrottlingException');
          if (other) throw new Error(`PutEvents refused an entry: ${JSON.stringify(other)}`);
          pending = refused;
        }
      }),
    );
  }
}

describe.each([300, 1_000])('follows still draining when %i accounts post', (accountCount) => {
  it('every follower sees every post of the accounts they followed before it, once', async () => {
    const started = await startE2eRuntime(`follow-race-${accountCount}-`, { celebrityThreshold: 3 });
    try {
      const { runtime, events } = started;
      const accounts = Array.from({ length: accountCount }, (_, i) => `a${String(i).padStart(4, '0')}`);
      const followers = ['f1', 'f2', 'f3'];

      // Act
      await publish(events, accounts.flatMap((account) => followers.map((follower): [string, EventEnvelope] => ['follow.created', aFollow(follower, account)])));
      await sleep(3_000);
      const postedAt = performance.now();
      const followsLeft = runtime.queues.intake['follow.created']!.peek().length;
      await publish(events, accounts.map((account): [string, EventEnvelope] => ['post.published', aPost(account)]));
      await pipelineDrained(runtime, { attempts: 12_000, intervalMs: 50 });
      const drainMs = performance.now() - postedAt;
      process.stdout.write(`follow-race N=${accountCount}: ${followsLeft} of ${3 * accountCount} follows still queued when the posts were published; drained ${Math.round(drainMs)} ms after the first post\n`);

      // Assess
      for (const follower of followers) {
        const token = await runtime.secrets.issueToken({ tenantId: 'acme', userId: follower });
        const seen: string[] = [];
        let cursor: string | undefined;
        do {
          const answer = await call(runtime.endpoints.http, 'GET', `/notifications?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { token });
          expect(answer.status).toBe(200);
          const page = answer.body as { items: Notification[]; nextCursor?: string | null };
          seen.push(...page.items.filter((item) => item.type === 'post.published').map((item) => item.actor.id));
          cursor = page.nextCursor ?? undefined;
        } while (cursor);
        expect(seen.sort()).toEqual(accounts);
      }
    } finally {
      await stopE2eRuntime(started);
    }
  }, 1_200_000);
});
