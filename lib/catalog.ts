/**
 * A team's own catalog: the types the construct builds (rules, queues, fan-out functions, grants)
 * and the module the functions bundle in place of the package's catalog. Checked at synth, so a bad
 * catalog fails `cdk synth` with the type's name, never a deploy or a cold start.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import type { NotificationType } from '../src/core/ports/notification-type.js';
import { catalogProblems } from '../src/notifications/catalog-problems.js';
import { catalog as builtInCatalog } from '../src/notifications/index.js';
import { ConfigurationError } from './config.js';
import { LOCK_FILE, PROJECT_ROOT } from './bundling.js';

/** The bare specifier runtime code imports the catalog by (package.json `imports`, `src/notifications/deployed.ts`). */
export const CATALOG_SPECIFIER = '#notifications-catalog';

export { DETAIL_TYPE_PATTERN, catalogProblems } from '../src/notifications/catalog-problems.js';

const MODULE_EXTENSIONS = ['.ts', '.mts', '.js', '.mjs'];

/**
 * The catalog to build and the module to bundle. Without `entry`, every type must be one of the
 * package's (the functions bundle the package's catalog and would not know another).
 */
export function resolveCatalog(types: readonly NotificationType[] | undefined, entry: string | undefined): { types: readonly NotificationType[]; entry?: string } {
  const resolved = types ?? builtInCatalog;
  const problems = catalogProblems(resolved);
  if (entry === undefined) {
    // By name, not identity: the host may load the package's types through another entry.
    const builtIn = new Set(builtInCatalog.map((type) => type.detailType));
    const foreign = resolved.map((type) => type?.detailType).filter((detailType) => !builtIn.has(detailType));
    if (foreign.length > 0) problems.push(`types ${foreign.join(', ')} are not the package's: pass catalogEntry, the module of your catalog that exports \`catalog\`, so the functions bundle them`);
  } else {
    problems.push(...catalogEntryProblems(entry));
    if (types === undefined) problems.push('catalogEntry needs catalog: the same types the module exports, which the construct builds resources for');
  }
  if (problems.length > 0) throw new ConfigurationError(`NotificationInbox catalog:\n- ${problems.join('\n- ')}`);
  return entry === undefined ? { types: resolved } : { types: resolved, entry };
}

function catalogEntryProblems(entry: string): string[] {
  if (!isAbsolute(entry)) return [`catalogEntry must be an absolute path (e.g. path.join(import.meta.dirname, 'notifications/index.ts')), got ${entry}`];
  if (!existsSync(entry) || !statSync(entry).isFile()) return [`catalogEntry ${entry} does not exist`];
  if (!MODULE_EXTENSIONS.some((extension) => entry.endsWith(extension))) return [`catalogEntry ${entry} must be a ${MODULE_EXTENSIONS.join(', ')} module`];
  // The functions import `{ catalog }` from it; `export *` may carry it, so only its plain absence is refused.
  const source = readFileSync(entry, 'utf8');
  if (!/export\s+(?:const|let|var)\s+catalog\b|export\s*\{[^}]*\bcatalog\b[^}]*\}|export\s*\*\s*from/.test(source)) return [`catalogEntry ${entry} must export \`catalog\` (export const catalog = [...])`];
  return [];
}

/**
 * The esbuild `--alias` value for the catalog module: relative to the directory esbuild runs in
 * (the project root: this package's when it has its lock file, else the host app's), so it also
 * resolves inside the Docker bundling image; an entry outside that root stays absolute (local esbuild only).
 */
export function catalogAlias(entry: string): string {
  const root = bundlingRoot();
  const path = relative(root, entry);
  const target = path.startsWith('..') || isAbsolute(path) ? entry : `./${path.split(sep).join('/')}`;
  if (/[\s"'`$\\;&|<>()]/.test(target)) throw new ConfigurationError(`catalogEntry ${entry}: the path esbuild gets (${target}) must have no spaces or shell characters`);
  return `${CATALOG_SPECIFIER}=${target}`;
}

/** Where the CDK runs esbuild: the directory of the lock file it uses (`HandlerFunction` passes ours when it exists). */
function bundlingRoot(): string {
  if (existsSync(LOCK_FILE)) return PROJECT_ROOT;
  const lockFiles = ['pnpm-lock.yaml', 'yarn.lock', 'bun.lockb', 'bun.lock', 'package-lock.json'];
  for (let dir = process.cwd(); ; dir = dirname(dir)) {
    if (lockFiles.some((file) => existsSync(join(dir, file)))) return dir;
    if (dirname(dir) === dir) return process.cwd();
  }
}
