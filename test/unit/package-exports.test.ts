/**
 * The package's entry points stay in step (no build here; `npm run test:package` tests the built tarball):
 * every `exports` entry points at the built twin (dist/, `types` + `import`) of a source that the
 * build compiles, and tsconfig.json `paths` (the demo page's `serverless-notifications/client`) map
 * the same names to the same sources.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { LAMBDA_DIR, PROJECT_ROOT, packageRootOf } from '../../lib/bundling.js';

const root = join(import.meta.dirname, '..', '..');
interface PackageJson {
  name: string;
  exports: Record<string, string | { types: string; import: string }>;
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

const entries = Object.entries(pkg.exports).filter((entry): entry is [string, { types: string; import: string }] => typeof entry[1] === 'object');

describe('package entry points', () => {
  it('point each entry at the built JavaScript and declarations of a source the build compiles', () => {
    const buildFiles = readTsconfig('tsconfig.build.json').files ?? [];
    expect(entries.map(([subpath]) => subpath).sort()).toEqual(['.', './catalog', './catalog/built-in', './cdk', './client', './client/react', './producer']);
    for (const [subpath, target] of entries) {
      expect(target.import, subpath).toMatch(/^\.\/dist\/.+\.js$/);
      expect(target.types, subpath).toBe(target.import.replace(/\.js$/, '.d.ts'));
      expect(Object.keys(target), `${subpath}: types first`).toEqual(['types', 'import']);
      expect(existsSync(join(root, sourceOf(target.import))), subpath).toBe(true);
      expect(buildFiles, subpath).toContain(sourceOf(target.import));
    }
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
      expect(typeof target === 'object' ? `./${sourceOf(target.import)}` : undefined, name).toBe(source);
    }
  });

  it('build on pack only, ship dist, and leave React optional', () => {
    expect(pkg.scripts.prepack).toContain('build');
    expect(pkg.scripts.prepare).toBeUndefined();
    expect(pkg.files).toContain('dist');
    expect(pkg.peerDependencies.react).toBeDefined();
    expect(pkg.peerDependenciesMeta.react?.optional).toBe(true);
  });

  it('find the handler sources from the built construct library (dist/lib) as from lib/', () => {
    expect(PROJECT_ROOT).toBe(root);
    expect(packageRootOf(join(root, 'dist', 'lib', 'constructs'))).toBe(root);
    expect(LAMBDA_DIR).toBe(join(root, 'src', 'lambda'));
  });
});
