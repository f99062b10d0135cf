/**
 * Least privilege from the calls themselves (docs/least-privilege.md): every AWS call the system
 * tests of this run recorded (each local runtime records its functions' calls, RECORD_AWS_CALLS)
 * is evaluated against that function's IAM policy in the synthesized stack with an IAM policy
 * simulator. This project runs after the others (vitest.config.ts, groupOrder), so it reads the
 * recording of the same run: run alone, it has nothing to read and says so.
 */
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkLeastPrivilege, type CheckResult } from '../../scripts/least-privilege/check.js';
import { ENV } from '../../src/env.js';

const root = resolve(import.meta.dirname, '..', '..');
let result: CheckResult;

beforeAll(async () => {
  const recordingDir = process.env[ENV.RECORD_AWS_CALLS];
  if (!recordingDir) throw new Error(`${ENV.RECORD_AWS_CALLS} is not set: run the check through npm test (vitest.config.ts sets it)`);
  result = await checkLeastPrivilege({ root, recordingDir });
}, 180_000);

describe('least privilege from the recorded calls', () => {
  it('has a recording from every end-to-end file that starts a local runtime (run the whole suite: npm test)', () => {
    expect(result.evaluation.calls).toBeGreaterThan(0);
    expect(result.missingRecordings).toEqual([]);
  });

  it('translates every recorded call into IAM requests of the synthesized stack', () => {
    expect(result.evaluation.problems).toEqual([]);
  });

  it("allows every recorded call by its function's synthesized policy (IAM policy simulator)", () => {
    const denied = result.evaluation.denied.map(({ request, result: verdict, example }) => `${request.principal} ${request.action} ${request.resource} ${JSON.stringify(request.context)} -> ${verdict} (recorded: ${example.service} ${example.operation} via ${example.via})`);
    expect(denied).toEqual([]);
  });

  it('keeps no granted action that no recorded call uses without a written reason (docs/kept-grants.json)', () => {
    const unexplained = result.grants.filter((grant) => grant.usedBy === 0 && !grant.kept).map((grant) => `${grant.principal} ${grant.action} ${grant.label}${grant.condition ? ` ${JSON.stringify(grant.condition)}` : ''}`);
    expect(unexplained).toEqual([]);
  });

  it('has no reason for a grant the stack no longer makes', () => {
    expect(result.staleReasons).toEqual([]);
  });
});
