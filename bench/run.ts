/**
 * `npm run bench [-- <suite id> ...]`: runs the suites in bench/suites, merges their figures into
 * bench/results.json (an array of {name, value, unit}) and rewrites BENCHMARKS.md. With no suite
 * named it runs the default set (every suite not marked long in bench/suite-scope.ts); `--all` runs
 * every suite; `--stale` runs nothing and lists the suites whose recorded figures predate a change of
 * the code they measure (exit code 1 when there is one).
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { cpus, totalmem } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BenchResult, BenchSuite } from './harness.js';
import { newestScopeCommit, SUITE_SCOPE, scopeHash } from './suite-scope.js';

const here = dirname(fileURLToPath(import.meta.url));
const resultsFile = join(here, 'results.json');
const reportFile = join(here, '..', 'BENCHMARKS.md');
const suiteDir = join(here, 'suites');
const root = join(here, '..');

interface StoredReport {
  suites: Record<string, { title: string; method: string; ranAt: string; durationS?: number; scopeHash?: string; results: BenchResult[] }>;
}

async function loadSuites(): Promise<BenchSuite[]> {
  const files = (await readdir(suiteDir)).filter((file) => file.endsWith('.ts')).sort();
  const suites: BenchSuite[] = [];
  for (const file of files) {
    const module = (await import(pathToFileURL(join(suiteDir, file)).href)) as { suite?: BenchSuite };
    if (!module.suite) throw new Error(`${basename(file)} does not export a suite`);
    suites.push(module.suite);
  }
  return suites;
}

async function loadStored(): Promise<StoredReport> {
  try {
    return JSON.parse(await readFile(join(here, 'report.json'), 'utf8')) as StoredReport;
  } catch {
    return { suites: {} };
  }
}

function markdown(report: StoredReport): string {
  const lines = [
    '# Benchmarks',
    '',
    'Produced by `npm run bench` (all suites) or `npm run bench -- <suite>` (one suite); raw figures in',
    '`bench/results.json`. DynamoDB request and capacity counts come from an SDK middleware',
    '(`src/adapters/dynamo/request-meter.ts`) and are exact; times are wall clock on the machine below',
    'against the local runtime (dynalite), so they compare designs, not AWS latencies.',
    '`npm run bench` runs the default suites; `npm run bench -- --all` adds the long ones (marked below);',
    '`npm run bench -- --stale` lists suites whose figures predate a change of the code they measure',
    '(`bench/suite-scope.ts`).',
    '',
    `Machine: ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}.`,
    '',
  ];
  for (const [id, suite] of Object.entries(report.suites).sort(([a], [b]) => a.localeCompare(b))) {
    const took = suite.durationS === undefined ? '' : ` (${suite.durationS} s)`;
    const long = SUITE_SCOPE[id]?.long ? ', long: not in the default run' : '';
    lines.push(`## ${suite.title}`, '', `Suite \`${id}\`, run ${suite.ranAt}${took}${long}: \`npm run bench -- ${id}\``, '', suite.method.trim(), '');
    lines.push('| metric | value | unit | note |', '|---|---:|---|---|');
    for (const result of suite.results) lines.push(`| \`${result.name}\` | ${result.value} | ${result.unit} | ${result.note ?? ''} |`);
    lines.push('');
  }
  return lines.join('\n');
}

const args = process.argv.slice(2);
const flags = new Set(args.filter((arg) => arg.startsWith('--')));
const wanted = new Set(args.filter((arg) => !arg.startsWith('--')));
const unknownFlags = [...flags].filter((flag) => flag !== '--all' && flag !== '--stale');
if (unknownFlags.length > 0) throw new Error(`unknown option ${unknownFlags.join(', ')} (use --all or --stale)`);
const all = await loadSuites();
const unscoped = all.filter((suite) => SUITE_SCOPE[suite.id] === undefined).map((suite) => suite.id);
if (unscoped.length > 0) throw new Error(`bench suites without a scope in bench/suite-scope.ts: ${unscoped.join(', ')}`);
const report = await loadStored();

if (flags.has('--stale')) {
  const reasons = all.flatMap((suite): Array<[string, string]> => {
    const recorded = report.suites[suite.id];
    if (!recorded) return [[suite.id, 'never run']];
    if (recorded.scopeHash !== undefined) return recorded.scopeHash === scopeHash(root, suite.id) ? [] : [[suite.id, `figures of ${recorded.ranAt}, the code it measures changed since`]];
    // Recorded before scope hashes: by date, against the newest commit touching the scope.
    const newest = newestScopeCommit(root, suite.id);
    return newest && Date.parse(newest.at) > Date.parse(recorded.ranAt) ? [[suite.id, `figures of ${recorded.ranAt}, older than commit ${newest.commit} (${newest.at})`]] : [];
  });
  for (const [id, reason] of reasons) process.stdout.write(`${id}\t${reason}: npm run bench -- ${id}\n`);
  if (reasons.length === 0) process.stdout.write('bench: every suite\'s figures are from the code it measures\n');
  process.exit(reasons.length === 0 ? 0 : 1);
}

const suites = all.filter((suite) => (wanted.size > 0 ? wanted.has(suite.id) : flags.has('--all') || !SUITE_SCOPE[suite.id]!.long));
if (suites.length === 0) throw new Error(`no suite matches ${[...wanted].join(', ')}`);
for (const suite of suites) {
  process.stdout.write(`bench: ${suite.id} (${suite.title})\n`);
  const hash = scopeHash(root, suite.id);
  const started = performance.now();
  const results = await suite.run();
  for (const result of results) process.stdout.write(`  ${result.name} = ${result.value} ${result.unit}${result.note ? `  (${result.note})` : ''}\n`);
  const durationS = Math.round((performance.now() - started) / 1000);
  report.suites[suite.id] = { title: suite.title, method: suite.method, ranAt: new Date().toISOString(), durationS, scopeHash: hash, results };
}
const flat = Object.values(report.suites).flatMap((suite) => suite.results.map(({ name, value, unit }) => ({ name, value, unit })));
await writeFile(resultsFile, `${JSON.stringify(flat, null, 2)}\n`);
await writeFile(join(here, 'report.json'), `${JSON.stringify(report, null, 2)}\n`);
await writeFile(reportFile, `${markdown(report)}\n`);
process.stdout.write(`bench: wrote ${resultsFile} and ${reportFile}\n`);
process.exit(0);
