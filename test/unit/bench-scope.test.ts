/** `npm run bench -- --stale` (issue 29): every suite has a scope, and its hash follows the code it measures. */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { scopeHash, SUITE_SCOPE } from '../../bench/suite-scope.js';

const scratch = mkdtempSync(join(tmpdir(), 'bench-scope-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('bench suite scopes', () => {
  it('name every suite of bench/suites, and only those', () => {
    const suites = readdirSync(join(__dirname, '../../bench/suites')).map((file) => file.replace(/\.ts$/, '')).sort();
    expect(Object.keys(SUITE_SCOPE).sort()).toEqual(suites);
  });

  it('hash the measured files: a change inside the scope changes it, one outside does not', () => {
    mkdirSync(join(scratch, 'src/core/fanout'), { recursive: true });
    mkdirSync(join(scratch, 'src/core/read'), { recursive: true });
    mkdirSync(join(scratch, 'bench/suites'), { recursive: true });
    writeFileSync(join(scratch, 'bench/suites/fanout.ts'), 'suite');
    writeFileSync(join(scratch, 'src/core/fanout/service.ts'), 'v1');
    writeFileSync(join(scratch, 'src/core/read/page.ts'), 'v1');
    const before = scopeHash(scratch, 'fanout');
    writeFileSync(join(scratch, 'src/core/read/page.ts'), 'v2');
    const outside = scopeHash(scratch, 'fanout');
    writeFileSync(join(scratch, 'src/core/fanout/service.ts'), 'v2');
    const inside = scopeHash(scratch, 'fanout');
    expect(outside).toBe(before);
    expect(inside).not.toBe(before);
  });
});
