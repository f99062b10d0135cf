/**
 * The least-privilege check of a recorded run: the local stack synthesized (no bundling), the
 * recording read, every call evaluated, and each grant's verdict (used, kept with a reason, or
 * unused without one). `test/least-privilege/` asserts on it; `npm run least-privilege` prints it.
 */
import { buildLocalStack, resourceMap, synthesizeLocalStack } from '../deployed/local-stack.js';
import { evaluate, type Evaluation, type GrantUse } from './evaluate.js';
import { keptEntryFor, readKeptGrants, type KeptGrant } from './kept-grants.js';
import { filesStartingARuntime, readRecordings } from './recordings.js';
import { TemplateWorld } from './template-world.js';

export interface GrantVerdict extends GrantUse {
  /** The reason it is kept when no recorded call uses it. */
  kept?: KeptGrant;
}

export interface CheckResult {
  evaluation: Evaluation;
  grants: GrantVerdict[];
  /** Files that start a local runtime and left no recording (a partial run: unused grants are not known). */
  missingRecordings: string[];
  /** Entries of the reasons file that match no grant of the template (the grant is gone: drop the entry). */
  staleReasons: KeptGrant[];
  /** Recorded principals the check knows (functions of the local stack and the two Scheduler roles). */
  principals: string[];
  synthMs: number;
  evaluateMs: number;
}

export async function checkLeastPrivilege(options: { root: string; recordingDir: string }): Promise<CheckResult> {
  const startedSynth = Date.now();
  const built = buildLocalStack({ bundle: false, audit: true });
  const { template } = synthesizeLocalStack(built);
  const map = resourceMap(built, template);
  const world = new TemplateWorld(template, map);
  const synthMs = Date.now() - startedSynth;

  const recordings = readRecordings(options.recordingDir);
  // The functions, and the Scheduler target roles Scheduler delivers with.
  const principals = [...Object.keys(map.functions), ...Object.keys(map.schedulerRoles).map((role) => `role:${role}`)];
  const startedEvaluation = Date.now();
  const evaluation = await evaluate(recordings.calls, world, principals);
  const evaluateMs = Date.now() - startedEvaluation;

  const kept = readKeptGrants(options.root);
  const grants = evaluation.grants.map((grant): GrantVerdict => {
    const entry = grant.usedBy === 0 ? keptEntryFor(grant, kept) : undefined;
    return { ...grant, ...(entry ? { kept: entry } : {}) };
  });
  const staleReasons = kept.filter((entry) => !evaluation.grants.some((grant) => keptEntryFor(grant, [entry])));
  const missingRecordings = filesStartingARuntime(options.root).filter((file) => !recordings.labels.has(file));
  return { evaluation, grants, missingRecordings, staleReasons, principals, synthMs, evaluateMs };
}

/** `function | action | resource | used by (calls) | reason` rows, by function, for the docs and the report. */
export function grantTable(result: CheckResult): string {
  const rows = result.grants.map((grant) => {
    const condition = grant.condition ? ` if ${Object.entries(grant.condition).map(([operator, keys]) => `${operator} ${Object.entries(keys).map(([key, values]) => `${key} ${[values].flat().join(', ')}`).join('; ')}`).join(' and ')}` : '';
    const verdict = grant.usedBy > 0 ? `used (${grant.usedBy} calls)` : grant.kept ? `unused, kept: ${grant.kept.reason}` : 'UNUSED, no reason';
    return `| \`${grant.principal}\` | \`${grant.action}\` | \`${grant.label}\`${condition} | ${verdict} |`;
  });
  return ['| function | action | resource | recorded use |', '|---|---|---|---|', ...rows].join('\n');
}
