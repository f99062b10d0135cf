/**
 * A team's catalog module (`CATALOG_ENTRY`) in the local runtime, taken in as the construct takes
 * its `catalogEntry`: bundled with esbuild into one ESM file (TypeScript or JavaScript, an ESM or a
 * CommonJS app alike), then imported, checked like at synth, and served to every function
 * (`serveCatalog`). Its imports of this package (`serverless-notifications/catalog`,
 * `.../catalog/built-in/follow-created`...) resolve to this checkout's sources, the code that runs
 * them; its other imports (zod) resolve from where the module lives, as the construct's bundling does.
 */
import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Plugin } from 'esbuild';
import type { NotificationType } from '../core/ports/notification-type.js';
import { catalogProblems } from '../notifications/catalog-problems.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface PackageJson {
  name: string;
  exports: Record<string, string | { default: string }>;
}

/** `serverless-notifications/<subpath>` -> the source file its `exports` entry is built from (`./dist/x.js` -> `./x.ts`). */
export function packageSourcesPlugin(root = ROOT): Plugin {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as PackageJson;
  const escaped = pkg.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return {
    name: 'package-sources',
    setup(build) {
      build.onResolve({ filter: new RegExp(`^${escaped}(/.*)?$`) }, (args) => {
        const subpath = `.${args.path.slice(pkg.name.length)}`;
        const target = pkg.exports[subpath === '.' ? '.' : subpath];
        if (target === undefined) return { errors: [{ text: `${args.path} is not an entry of ${pkg.name} (package.json exports)` }] };
        const built = typeof target === 'string' ? target : target.default;
        return { path: join(root, built.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts')) };
      });
    },
  };
}

export class CatalogEntryError extends Error {
  override readonly name = 'CatalogEntryError';
}

/** Bundles, imports and checks the catalog module at `entry` (absolute, or relative to the working directory); `outDir` holds the bundle. */
export async function loadCatalogEntry(entry: string, outDir: string): Promise<readonly NotificationType[]> {
  const path = isAbsolute(entry) ? entry : resolve(entry);
  const { build } = await import('esbuild');
  const outfile = join(outDir, `catalog-${Date.now()}.mjs`);
  await mkdir(dirname(outfile), { recursive: true });
  try {
    await build({
      entryPoints: [path],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      outfile,
      // A CommonJS dependency's `require` of a Node built-in needs a real `require` in ESM output (as lib/bundling.ts).
      banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
      // A module outside any node_modules tree (a sample, a test fixture) still finds zod.
      nodePaths: [join(ROOT, 'node_modules')],
      plugins: [packageSourcesPlugin()],
      logLevel: 'silent',
    });
  } catch (error) {
    throw new CatalogEntryError(`CATALOG_ENTRY ${path} does not build: ${(error as Error).message}`);
  }
  const loaded = (await import(pathToFileURL(outfile).href)) as { catalog?: unknown };
  if (!Array.isArray(loaded.catalog)) throw new CatalogEntryError(`CATALOG_ENTRY ${path} must export \`catalog\` (export const catalog = [...])`);
  const types = loaded.catalog as NotificationType[];
  const problems = catalogProblems(types);
  if (problems.length > 0) throw new CatalogEntryError(`CATALOG_ENTRY ${path}:\n- ${problems.join('\n- ')}`);
  return types;
}
