/** Reads a run's AWS call recordings (`RECORD_AWS_CALLS`): every file's header and calls. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RecordedAwsCall, RecordingHeader } from '../../src/local/aws-calls/recorded-call.js';

export interface Recordings {
  /** The labels that recorded (test files, `runtime`). */
  labels: Set<string>;
  calls: RecordedAwsCall[];
}

export function readRecordings(dir: string): Recordings {
  const recordings: Recordings = { labels: new Set(), calls: [] };
  if (!existsSync(dir)) return recordings;
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.jsonl')).sort()) {
    const [header, ...lines] = readFileSync(join(dir, file), 'utf8').trim().split('\n');
    if (!header) continue;
    recordings.labels.add((JSON.parse(header) as RecordingHeader).label);
    for (const line of lines) recordings.calls.push(JSON.parse(line) as RecordedAwsCall);
  }
  return recordings;
}

/**
 * The end-to-end files that start a local runtime (in-process, or `npm start`): a complete run has
 * a recording from each, so a grant unused in it is unused by the suite.
 */
export function filesStartingARuntime(root: string): string[] {
  const dir = join(root, 'test', 'e2e');
  return readdirSync(dir)
    .filter((name) => name.endsWith('.test.ts'))
    .filter((name) => /startLocalRuntime\(|startE2eRuntime\(|'npm', \['start'/.test(readFileSync(join(dir, name), 'utf8')))
    .map((name) => `test/e2e/${name}`)
    .sort();
}
