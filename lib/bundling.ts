/**
 * How a Lambda handler is bundled, in one place: the CDK function construct and the bundle-size
 * bench (`bench/suites/bundle-size.ts`) both read these settings, so the bench measures what ships.
 * No aws-cdk-lib import here, so the bench stays light.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LAMBDA_FUNCTION_NAMES, type LambdaFunctionName } from '../src/lambda/functions.js';

/**
 * The nearest folder above `start` with a package.json: the repository when this file runs from
 * `lib/`, the installed package when it runs built from `dist/lib/` (the handler sources ship in `src/`).
 */
export function packageRootOf(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${start}`);
  }
}

export const PROJECT_ROOT = packageRootOf(dirname(fileURLToPath(import.meta.url)));
/** The Lambda entry files, `<name>.ts` for each function of `src/lambda/functions.ts`. */
export const LAMBDA_DIR = join(PROJECT_ROOT, 'src', 'lambda');
export const LOCK_FILE = join(PROJECT_ROOT, 'package-lock.json');

/**
 * ESM output needs `require` for the few CommonJS dependencies that call it for Node built-ins;
 * esbuild's own shim throws "Dynamic require is not supported" in ESM.
 */
export const ESM_REQUIRE_BANNER = "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";

export const bundleSettings = {
  target: 'node22',
  format: 'esm',
  minify: true,
  sourceMap: true,
  /** Stack traces map to file and line; embedding the sources would double the asset for nothing. */
  sourcesContent: false,
  mainFields: ['module', 'main'],
  banner: ESM_REQUIRE_BANNER,
  /** The Node.js 22 Lambda runtime ships AWS SDK v3: smaller bundles and faster cold starts. */
  externals: ['@aws-sdk/*', '@smithy/*'],
} as const;

export interface HandlerEntry {
  /** The function's name in the table, e.g. `rest-read`. */
  name: LambdaFunctionName;
  path: string;
}

/** The entry file of one function. */
export function entryPath(name: LambdaFunctionName): string {
  return join(LAMBDA_DIR, `${name}.ts`);
}

/** Every Lambda entry, in the table's order (`src/lambda/functions.ts`). */
export function handlerEntries(): HandlerEntry[] {
  return LAMBDA_FUNCTION_NAMES.map((name) => ({ name, path: entryPath(name) }));
}
