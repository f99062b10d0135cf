/**
 * The package's entry points stay in step (no build here; `npm run test:package` tests the built tarball):
 * every `exports` entry points at the built twin (dist/, `types` + `default`, so a CommonJS CDK app
 * can require it too) of a source that the build compiles, the stylesheet at its source, and
 * tsconfig.json `paths` (the demo page's `serverless-notifications/client`) map the same names to
 * the same sources; nothing but the optional peers is installed with the package.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { LAMBDA_DIR, PROJECT_ROOT, packageRootOf } from '../../lib/bundling.js';

const root = join(import.meta.dirname, '..', '..');
interface PackageJson {
  name: string;
  exports: Record<string, string | { types: string; default: string }>;
  dependencies?: Record<string, string>;
  devDependencies: Record<string, string>;
  types: string;
  typesVersions: Record<'*', Record<string, string[]>>;
  scripts: Record<string, string>;
  files: string[];
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
}
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as PackageJson;

function readTsconfig(name: string): { compilerOptions?: { paths?: Record<string, string[]> }; files?: string[] } {
  const { config, error } = ts.readConfigFile(join(root, name), ts.sys.readFile);
  if (error) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, '\n'));
  return config as { compilerOptions?: { paths?: Record<string, string[]> }; files?: string[] };
}

/** `./dist/src/client/index.js` -> `src/client/index.ts`. */
function sourceOf(built: string): string {
  return built.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts');
}

const entries = Object.entries(pkg.exports).filter((entry): entry is [string, { types: string; default: string }] => typeof entry[1] === 'object');
const BUILT_IN_TYPES = ['comment-created', 'follow-created', 'follow-deleted', 'mention-created', 'notification-retracted', 'post-published'];

describe('package entry points', () => {
  it('point each entry at the built JavaScript and declarations of a source the build compiles', () => {
    const buildFiles = readTsconfig('tsconfig.build.json').files ?? [];
    expect(entries.map(([subpath]) => subpath).sort()).toEqual(
      ['.', './catalog', './catalog/built-in', ...BUILT_IN_TYPES.map((type) => `./catalog/built-in/${type}`), './cdk', './client', './client/react', './producer'].sort(),
    );
    for (const [subpath, target] of entries) {
      expect(target.default, subpath).toMatch(/^\.\/dist\/.+\.js$/);
      expect(target.types, subpath).toBe(target.default.replace(/\.js$/, '.d.ts'));
      expect(Object.keys(target), `${subpath}: types first`).toEqual(['types', 'default']);
      expect(existsSync(join(root, sourceOf(target.default))), subpath).toBe(true);
      expect(buildFiles, subpath).toContain(sourceOf(target.default));
    }
    expect(pkg.exports['./client/styles.css']).toBe('./src/client/styles.css');
    expect(existsSync(join(root, 'src', 'client', 'styles.css'))).toBe(true);
  });

  it('give TypeScript projects on the older `node` resolution the same declarations (typesVersions)', () => {
    const declarations = Object.fromEntries(entries.filter(([subpath]) => subpath !== '.').map(([subpath, target]) => [subpath.slice(2), [target.types]]));
    expect(pkg.typesVersions['*']).toEqual(declarations);
    expect(pkg.types).toBe((pkg.exports['.'] as { types: string }).types);
  });

  it('map the package names the repository imports to the same sources as the exports', () => {
    const paths = readTsconfig('tsconfig.json').compilerOptions?.paths ?? {};
    expect(Object.keys(paths).length).toBeGreaterThan(0);
    for (const [name, [source]] of Object.entries(paths)) {
      const subpath = name === pkg.name ? '.' : `.${name.slice(pkg.name.length)}`;
      const target = pkg.exports[subpath];
      expect(typeof target === 'object' ? `./${sourceOf(target.default)}` : undefined, name).toBe(source);
    }
  });

  it('build on pack only, ship dist, and leave React optional', () => {
    expect(pkg.scripts.prepack).toContain('build');
    expect(pkg.scripts.prepare).toBeUndefined();
    expect(pkg.files).toContain('dist');
    expect(pkg.peerDependencies.react).toBeDefined();
    expect(pkg.peerDependenciesMeta.react?.optional).toBe(true);
  });

  it('install nothing with the package: every server-side dependency is an optional peer the repository develops with', () => {
    expect(pkg.dependencies ?? {}).toEqual({});
    for (const name of Object.keys(pkg.peerDependencies)) {
      expect(pkg.peerDependenciesMeta[name]?.optional, name).toBe(true);
      expect(pkg.devDependencies[name], `${name} is developed with`).toBeDefined();
    }
    for (const name of ['zod', 'jose', 'ulid', '@aws-lambda-powertools/logger', '@aws-sdk/client-eventbridge', 'aws-cdk-lib']) expect(pkg.peerDependencies[name], name).toBeDefined();
  });

  it('declare as a peer every package the shipped code imports (src but the local runtime, and lib)', () => {
    const imported = new Set<string>();
    const walk = (dir: string): void => {
      for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
        const path = `${dir}/${entry.name}`;
        if (entry.isDirectory() && path !== 'src/local') walk(path);
        else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) {
          const source = readFileSync(join(root, path), 'utf8');
          const specifiers = [...source.matchAll(/^\s*(?:import|export)\s[^;]*?\sfrom\s*'([^']+)'/gm), ...source.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g)].map((match) => match[1]!);
          for (const specifier of specifiers.filter((candidate) => !/^[.#/]/.test(candidate))) {
            const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!;
            if (!name.startsWith('node:') && !builtinModules.includes(name) && name !== pkg.name && name !== 'esbuild') imported.add(name);
          }
        }
      }
    };
    walk('src');
    walk('lib');
    // Types-only packages (`aws-lambda`, from @types/aws-lambda) ship nothing to install.
    expect([...imported].filter((name) => pkg.peerDependencies[name] === undefined && pkg.devDependencies[`@types/${name}`] === undefined).sort()).toEqual([]);
  });

  it('find the handler sources from the built construct library (dist/lib) as from lib/', () => {
    expect(PROJECT_ROOT).toBe(root);
    expect(packageRootOf(join(root, 'dist', 'lib', 'constructs'))).toBe(root);
    expect(LAMBDA_DIR).toBe(join(root, 'src', 'lambda'));
  });
});
