/**
 * The Lambda table (src/lambda/functions.ts) is the one list of functions: src/lambda holds exactly
 * its entries, and each entry is the four lines that hand `process.env` to its composition root.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { handlerEntries, LAMBDA_DIR } from '../../lib/bundling.js';
import { LAMBDA_FUNCTIONS, LAMBDA_FUNCTION_NAMES } from '../../src/lambda/functions.js';
import { LOCAL_FUNCTIONS } from '../../src/local/functions.js';

const ROOT = resolve(import.meta.dirname, '../..');

describe('the Lambda table', () => {
  it('lists every entry file of src/lambda, and each entry file exists', () => {
    const files = readdirSync(LAMBDA_DIR).filter((name) => name.endsWith('.ts') && name !== 'functions.ts').map((name) => name.slice(0, -'.ts'.length));
    expect(files.sort()).toEqual([...LAMBDA_FUNCTION_NAMES].sort());
    expect(handlerEntries().map((entry) => entry.path)).toEqual(LAMBDA_FUNCTION_NAMES.map((name) => join(LAMBDA_DIR, `${name}.ts`)));
  });

  it('has each entry export `handler` built by the composition root the table names', () => {
    for (const [name, { wiring }] of Object.entries(LAMBDA_FUNCTIONS)) {
      const text = readFileSync(join(LAMBDA_DIR, `${name}.ts`), 'utf8');
      const imports = [...text.matchAll(/from '([^']+)'/g)].map((match) => resolve(LAMBDA_DIR, match[1]!).replace(/\.js$/, '.ts'));
      expect(imports, name).toEqual([join(ROOT, wiring)]);
      expect(text, name).toMatch(/export const handler = \w+\(process\.env\);/);
    }
  });

  it('is what the local runtime composes: one composition per function', () => {
    expect(Object.keys(LOCAL_FUNCTIONS).sort()).toEqual([...LAMBDA_FUNCTION_NAMES].sort());
  });
});
