/**
 * `npm run least-privilege`: evaluates the AWS calls recorded by the last `npm test` (or the
 * directory in RECORD_AWS_CALLS) and prints every function's grants with what used them, and why
 * each unused one is kept. The same check runs in `npm test` (test/least-privilege/).
 */
import { resolve } from 'node:path';
import { checkLeastPrivilege, grantTable } from './check.js';

const root = resolve(import.meta.dirname, '..', '..');
const recordingDir = process.env.RECORD_AWS_CALLS ?? resolve(root, '.local', 'aws-calls');
const result = await checkLeastPrivilege({ root, recordingDir });
const { evaluation } = result;
process.stdout.write(`${grantTable(result)}\n\n`);
process.stdout.write(
  [
    `recording: ${recordingDir} (${evaluation.calls} distinct calls, ${evaluation.callCount} in all)`,
    `simulated: ${evaluation.simulated} distinct IAM requests; denied: ${evaluation.denied.length}; problems: ${evaluation.problems.length}`,
    `grants: ${result.grants.length}, used ${result.grants.filter((grant) => grant.usedBy > 0).length}, kept with a reason ${result.grants.filter((grant) => grant.usedBy === 0 && grant.kept).length}, unused without one ${result.grants.filter((grant) => grant.usedBy === 0 && !grant.kept).length}`,
    ...(result.missingRecordings.length > 0 ? [`no recording from: ${result.missingRecordings.join(', ')} (a partial run: run npm test)`] : []),
    ...evaluation.denied.map(({ request, result: verdict }) => `DENIED ${request.principal} ${request.action} ${request.resource} ${JSON.stringify(request.context)}: ${verdict}`),
    ...evaluation.problems.map((problem) => `PROBLEM ${problem}`),
    `synth ${result.synthMs} ms, evaluation ${result.evaluateMs} ms`,
    '',
  ].join('\n'),
);
process.exitCode = evaluation.denied.length + evaluation.problems.length > 0 ? 1 : 0;
