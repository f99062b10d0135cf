/**
 * `npm run bench [-- <suite id> ...]`: runs the suites in bench/suites, merges their figures into
 * bench/results.json (an array of {name, value, unit}) and rewrites BENCHMARKS.md.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { cpus, totalmem } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BenchResult, BenchSuite } from './harness.js';

const here = dirname(fileURLToPath(import.meta.url));
const resultsFile = join(here, 'results.json');
const reportFile = join(here, '..', 'BENCHMARKS.md');
const suiteDir = join(here, 'suites');

interface StoredReport {
  suites: Record<string, { title: string; method: string; ranAt: string; results: BenchResult[] }>;
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
    '',
    `Machine: ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}.`,
    '',
  ];
  for (const [id, suite] of Object.entries(report.suites).sort(([a], [b]) => a.localeCompare(b))) {
    lines.push(`## ${suite.title}`, '', `Suite \`${id}\`, run ${suite.ranAt}: \`npm run bench -- ${id}\``, '', suite.method.trim(), '');
    lines.push('| metric | value | unit | note |', '|---|---:|---|---|');
    for (const result of suite.results) lines.push(`| \`${result.name}\` | ${result.value} | ${result.unit} | ${result.note ?? ''} |`);
    lines.push('');
  }
  return lines.join('\n');
}

const wanted = new Set(process.argv.slice(2));
const suites = (await loadSuites()).filter((suite) => wanted.size === 0 || wanted.has(suite.id));
if (suites.length === 0) throw new Error(`no suite matches ${[...wanted].join(', ')}`);
const report = await loadStored();
for (const suite of suites) {
  process.stdout.write(`bench: ${suite.id} (${suite.title})\n`);
  const results = await suite.run();
  for (const result of results) process.stdout.write(`  ${result.name} = ${result.value} ${result.unit}${result.note ? `  (${result.note})` : ''}\n`);
  report.suites[suite.id] = { title: suite.title, method: suite.method, ranAt: new Date().toISOString(), results };
}
const flat = Object.values(report.suites).flatMap((suite) => suite.results.map(({ name, value, unit }) => ({ name, value, unit })));
await writeFile(resultsFile, `${JSON.stringify(flat, null, 2)}\n`);
await writeFile(join(here, 'report.json'), `${JSON.stringify(report, null, 2)}\n`);
await writeFile(reportFile, `${markdown(report)}\n`);
process.stdout.write(`bench: wrote ${resultsFile} and ${reportFile}\n`);
process.exit(0);
