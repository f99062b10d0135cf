/**
 * The fault test of issue 14: three SIGKILL restarts of the local runtime (a child process, same
 * DATA_DIR) during a 1,500-event PutEvents load -> 0 lost, 0 duplicated notifications, 0 duplicated
 * live pushes per connection.
 */
import { describe, expect, it } from 'vitest';
import { runKillRestartLoad } from '../support/kill-restart-load.js';

describe('SIGKILL restarts during a load', () => {
  it('1,500 events, 3 kills: every (recipient, event) in the inbox exactly once, no id pushed twice on one connection', async () => {
    // Act
    const result = await runKillRestartLoad({ events: 1_500, kills: 3, users: 20, liveUsers: 6, eventsPerSecond: 60, functionTimeoutMs: 2_000, settleTimeoutMs: 300_000 });

    // Assess
    expect(result.kills).toBe(3);
    expect({ lost: result.lost, duplicated: result.duplicated, duplicatePushes: result.duplicatePushes }).toEqual({ lost: [], duplicated: [], duplicatePushes: [] });
    expect(result.expectedPairs).toBeGreaterThan(2_500);
    expect(result.pushes).toBeGreaterThan(0);
    expect({ ok: result.audit.ok, problems: result.audit.problems, duplicates: result.audit.duplicates, missingAccepted: result.audit.missingAccepted, missingWritten: result.audit.missingWritten }).toEqual({ ok: true, problems: [], duplicates: 0, missingAccepted: [], missingWritten: [] });
  }, 600_000);
});
