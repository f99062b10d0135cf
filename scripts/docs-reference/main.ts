/**
 * `npm run docs:reference`: rewrites the generated regions of README.md and docs/ from the code.
 * `--check` writes nothing and exits 1 naming the stale pages (test/unit/docs-reference.test.ts
 * runs the same comparison in `npm test`).
 */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pageStates } from './regions.js';
import { renderers } from './renderers.js';

const root = resolve(import.meta.dirname, '..', '..');
const check = process.argv.includes('--check');
const stale = pageStates(root, renderers).filter((page) => page.generated !== page.current);
for (const page of stale) {
  if (check) process.stderr.write(`stale: ${page.file} (regions ${page.regions.join(', ')})\n`);
  else {
    writeFileSync(join(root, page.file), page.generated);
    process.stdout.write(`wrote ${page.file}\n`);
  }
}
if (check && stale.length > 0) {
  process.stderr.write('run `npm run docs:reference` and commit the result\n');
  process.exitCode = 1;
}
if (stale.length === 0) process.stdout.write('docs reference is up to date\n');
