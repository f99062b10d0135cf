/**
 * How a Lambda handler is bundled, in one place: the CDK function construct and the bundle-size
 * bench (`bench/suites/bundle-size.ts`) both read these settings, so the bench measures what ships.
 * No aws-cdk-lib import here, so the bench stays light.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

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
export const HANDLERS_DIR = join(PROJECT_ROOT, 'src', 'lambda');
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
  /** File name without extension, e.g. `rest-read`. */
  name: string;
  path: string;
}

/** The Lambda entry files: top-level `src/handlers/*.ts` files that export `handler`. */
export function handlerEntries(dir: string = HANDLERS_DIR): HandlerEntry[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((file) => file.isFile() && file.name.endsWith('.ts') && !file.name.endsWith('.d.ts'))
    .map((file) => join(dir, file.name))
    .filter((path) => /export\s+(const|let|async\s+function|function)\s+handler\b|export\s*\{[^}]*\bhandler\b[^}]*\}/.test(readFileSync(path, 'utf8')))
    .map((path) => ({ name: basename(path, '.ts'), path }))
    .sort((a, b) => a.name.localeCompare(b.name));
}
