/**
 * What each bench suite measures (the paths whose code its figures depend on) and which suites are
 * long (run only with `--all` or by name). Kept apart from the suites so a suite's code and its scope
 * change independently. `npm run bench -- --stale` compares a content hash of these paths, taken
 * when the suite ran, with the files now: a figure is stale as soon as the code it measures changed,
 * committed or not (a commit date would also flag a suite whose figures were committed together
 * with the code they measure).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const HARNESS = ['bench/harness.ts', 'bench/separate-dynamo.ts', 'bench/dynamo.ts'];
const DYNAMO = ['src/adapters/dynamo', 'src/core/model', 'src/core/ports'];

/**
 * The default run holds the headline figures (issue 29: live latency and its stages, fan-out, intake
 * with the badge under load, reads, actions, the celebrity index) in about 5 minutes on 2 cores; the
 * audit trail's costs and the channels' (seeding 100,000 alert subscribers alone takes most of its
 * 3 minutes) run by name or with `--all`, like the scale suites.
 */
export const SUITE_SCOPE: Record<string, { measures: readonly string[]; long?: true }> = {
  actions: { measures: ['src/core/actions', 'src/core/read', ...DYNAMO] },
  audit: { measures: ['src/core/audit', 'src/adapters/audit', 'src/local/audit', 'src/contract/audit-record.ts', 'src/local'], long: true },
  'bundle-size': { measures: ['src', 'lib/bundling.ts', 'package-lock.json', 'examples/team-catalog'] },
  'celebrity-index': { measures: ['src/adapters/dynamo/celebrity-posts-log.ts', 'src/core/model/celebrity-posts-index.ts', 'src/core/fanout/fanout-plan.ts', ...DYNAMO] },
  channels: { measures: ['src/core/channels', 'src/adapters', 'src/app'], long: true },
  erase: { measures: ['src/core/privacy', 'src/ops', ...DYNAMO], long: true },
  fanout: { measures: ['src/core/fanout', 'src/core/preferences', ...DYNAMO] },
  'inbox-view': { measures: ['src/core/actions', 'src/core/read', ...DYNAMO] },
  intake: { measures: ['src'] },
  'live-delivery': { measures: ['src', 'bench/load-producer.ts', 'bench/delivery-lookups.ts', 'bench/stage-timeline.ts'] },
  'read-scale': { measures: ['src/core/read', 'bench/celebrity-delivery-sim.ts', ...DYNAMO], long: true },
  'read-state': { measures: ['src/core/read', 'src/core/actions', ...DYNAMO] },
};

function filesUnder(root: string, path: string): string[] {
  const absolute = join(root, path);
  let stat;
  try {
    stat = statSync(absolute);
  } catch {
    return [];
  }
  if (stat.isFile()) return [path];
  return readdirSync(absolute, { withFileTypes: true })
    .filter((entry) => entry.name !== 'node_modules')
    .flatMap((entry) => filesUnder(root, relative(root, join(absolute, entry.name))));
}

/** sha256 over the sorted files of the suite's scope, its own file and the harness (names and bytes). */
export function scopeHash(root: string, suiteId: string): string {
  const scope = SUITE_SCOPE[suiteId];
  if (!scope) throw new Error(`bench suite ${suiteId} has no scope in bench/suite-scope.ts`);
  const files = [...new Set([...scope.measures, `bench/suites/${suiteId}.ts`, ...HARNESS].flatMap((path) => filesUnder(root, path)))].sort();
  const hash = createHash('sha256');
  for (const file of files) hash.update(`${file}\u0000`).update(readFileSync(join(root, file))).update('\u0000');
  return hash.digest('hex');
}

/** The commit date of the newest commit touching the suite's scope (for figures recorded before scope hashes). */
export function newestScopeCommit(root: string, suiteId: string): { commit: string; at: string } | undefined {
  const scope = SUITE_SCOPE[suiteId];
  if (!scope) return undefined;
  const out = execFileSync('git', ['log', '-1', '--format=%h %cI', '--', ...scope.measures, `bench/suites/${suiteId}.ts`, ...HARNESS], { cwd: root, encoding: 'utf8' }).trim();
  if (!out) return undefined;
  const [commit, at] = out.split(' ');
  return { commit: commit!, at: at! };
}
