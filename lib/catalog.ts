/**
 * A team's own catalog: the types the construct builds (rules, queues, fan-out functions, grants)
 * and the module the functions bundle in place of the package's catalog. Checked at synth, so a bad
 * catalog fails `cdk synth` with the type's name, never a deploy or a cold start.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import type { NotificationType } from '../src/core/ports/notification-type.js';
import { catalog as builtInCatalog, resourceNameOf } from '../src/notifications/index.js';
import { ConfigurationError } from './config.js';
import { LOCK_FILE, PROJECT_ROOT } from './bundling.js';

/** The bare specifier runtime code imports the catalog by (package.json `imports`, `src/notifications/deployed.ts`). */
export const CATALOG_SPECIFIER = '#notifications-catalog';

/**
 * EventBridge detail types of the catalog: lowercase words joined by `.`, `-` or `_`
 * (`mention.created`, `invoice-paid`), up to 64 characters, so resource ids and names derived from
 * them stay readable and unique.
 */
export const DETAIL_TYPE_PATTERN = /^[a-z][a-z0-9]*(?:[._-][a-z0-9]+)*$/;
const MAX_DETAIL_TYPE_LENGTH = 64;
const PRIORITIES = ['urgent', 'info'];
const AUDIENCES = ['recipients', 'followersOfActor', 'none'];
const GRAPH_EFFECTS = ['follow', 'unfollow'];
const MODULE_EXTENSIONS = ['.ts', '.mts', '.js', '.mjs'];

/** Every problem of the catalog at once, each naming its type (one synth shows them all). */
export function catalogProblems(types: readonly NotificationType[]): string[] {
  const problems: string[] = [];
  if (types.length === 0) problems.push('the catalog is empty: pass at least one type');
  const byResourceName = new Map<string, string>();
  types.forEach((type: Partial<NotificationType> | undefined, index) => {
    const detailType = type?.detailType;
    const label = typeof detailType === 'string' ? detailType : `#${index}`;
    if (typeof type !== 'object' || type === null) {
      problems.push(`type #${index} is not an object (use defineNotificationType)`);
      return;
    }
    if (typeof detailType !== 'string' || detailType.length > MAX_DETAIL_TYPE_LENGTH || !DETAIL_TYPE_PATTERN.test(detailType)) {
      problems.push(`type ${label}: detailType ${JSON.stringify(detailType)} must be lowercase words joined by '.', '-' or '_' (e.g. 'invoice.paid'), at most ${MAX_DETAIL_TYPE_LENGTH} characters`);
    } else {
      // Resource ids come from the name (`invoice.paid` -> `InvoicePaid`), so `invoice-paid` would collide.
      const resourceName = resourceNameOf(detailType);
      const clash = byResourceName.get(resourceName);
      if (clash === detailType) problems.push(`type ${label} is in the catalog twice`);
      else if (clash !== undefined) problems.push(`types ${clash} and ${detailType} share the resource name ${resourceName}: rename one`);
      else byResourceName.set(resourceName, detailType);
    }
    const schema = type.dataSchema as { safeParse?: unknown } | undefined;
    if (typeof schema?.safeParse !== 'function') problems.push(`type ${label}: dataSchema is missing or not a zod schema`);
    if (typeof type.render !== 'function') problems.push(`type ${label}: render is missing`);
    if (!PRIORITIES.includes(type.defaultPriority as string)) problems.push(`type ${label}: defaultPriority must be one of ${PRIORITIES.join(', ')}, got ${JSON.stringify(type.defaultPriority)}`);
    if (!AUDIENCES.includes(type.audience as string)) problems.push(`type ${label}: audience must be one of ${AUDIENCES.join(', ')}, got ${JSON.stringify(type.audience)}`);
    if (typeof type.digestible !== 'boolean') problems.push(`type ${label}: digestible must be true or false`);
    if (type.graphEffect !== undefined && (!GRAPH_EFFECTS.includes(type.graphEffect) || typeof type.followeeOf !== 'function')) {
      problems.push(`type ${label}: graphEffect must be one of ${GRAPH_EFFECTS.join(', ')} with a followeeOf function`);
    }
  });
  return problems;
}

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
