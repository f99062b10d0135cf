/**
 * The layering of src/ and lib/, from their imports: the contract at the bottom (zod and itself
 * only); core pure (no adapter, handler, local, app, client or catalog code, no AWS SDK) and its
 * rooms layered (CORE_LAYERS: `read/` never imports `fanout/`...); adapters never reach up into
 * handlers, app or local; handlers never import the local runtime; Lambda entries only their
 * composition root; the browser client imports only its own files (and types); and no module
 * imports itself through a cycle, type-only imports included.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

interface Import {
  /** Repository-relative path of the imported file, or the package name. */
  target: string;
  typeOnly: boolean;
  relative: boolean;
}

type ImportGraph = Map<string, Import[]>;

const IMPORT_PATTERN = /(?:^|\n)\s*(import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Imports of one file: relative ones resolved to repository paths (`.js` -> `.ts`), packages by name. */
export function importsOf(file: string, text: string): Import[] {
  const imports: Import[] = [];
  for (const match of text.matchAll(IMPORT_PATTERN)) {
    const specifier = match[3] ?? match[4]!;
    const typeOnly = match[2] !== undefined;
    if (specifier.startsWith('.')) {
      const source = relative(ROOT, resolve(dirname(join(ROOT, file)), specifier)).replace(/\.js$/, '.ts');
      // React components are .tsx; their imports name them .js like any module.
      const target = !existsSync(join(ROOT, source)) && existsSync(join(ROOT, `${source}x`)) ? `${source}x` : source;
      imports.push({ target, typeOnly, relative: true });
    } else {
      imports.push({ target: specifier, typeOnly, relative: false });
    }
  }
  return imports;
}

function projectGraph(): ImportGraph {
  const files = [...sourceFiles(join(ROOT, 'src')), ...sourceFiles(join(ROOT, 'lib'))].map((path) => relative(ROOT, path));
  return new Map(files.map((file) => [file, importsOf(file, readFileSync(join(ROOT, file), 'utf8'))]));
}

/** Every import cycle (strongly connected component of more than one module, or a self-import). */
export function findCycles(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let counter = 0;
  const visit = (node: string) => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const { target, relative: isRelative } of graph.get(node) ?? []) {
      if (!isRelative || !graph.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node)!, index.get(target)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      const selfImport = (graph.get(node) ?? []).some((edge) => edge.target === node);
      if (component.length > 1 || selfImport) cycles.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return cycles;
}

interface LayerRule {
  /** Files the rule applies to. */
  from: string;
  /** What they may not import: repository paths (prefixes) or package names (prefixes). */
  forbidden?: string[];
  /** Type-only imports are allowed (the client's contract types). */
  allowTypeOnly?: boolean;
  /** Relative imports must stay under one of these prefixes. */
  onlyWithin?: string[];
  /** Package imports must be one of these (exact names). */
  onlyPackages?: string[];
}

/**
 * The rooms of src/core/, bottom up, and the rooms each may import besides itself (every room may
 * import src/contract/). `model` is the shared vocabulary, `jobs` what functions hand each other,
 * `ports` the interfaces adapters implement; the capabilities sit above them.
 */
export const CORE_LAYERS: Readonly<Record<string, readonly string[]>> = {
  model: [],
  jobs: ['model'],
  ports: ['model', 'jobs'],
  preferences: ['model', 'jobs', 'ports'],
  read: ['model', 'ports'],
  live: ['model', 'jobs', 'ports', 'preferences'],
  fanout: ['model', 'jobs', 'ports', 'preferences'],
  channels: ['model', 'jobs', 'ports', 'preferences'],
  actions: ['model', 'jobs', 'ports', 'read', 'live'],
  // Erasure reads scheduled events and jobs to find whose they are.
  privacy: ['model', 'jobs', 'fanout'],
  // The audit trail: the decisions come as trace entries (ports/trace), hashed with keys it is handed.
  audit: ['model', 'ports'],
};

const coreRoomRules: LayerRule[] = Object.entries(CORE_LAYERS).map(([room, below]) => ({
  from: `src/core/${room}/`,
  // The table specs are data (key and attribute names) the erasure classifies items by.
  onlyWithin: [`src/core/${room}/`, ...below.map((lower) => `src/core/${lower}/`), 'src/contract/', 'src/table-specs.ts'],
}));

const RULES: LayerRule[] = [
  { from: 'src/contract/', onlyWithin: ['src/contract/'], onlyPackages: ['zod'] },
  { from: 'src/core/', forbidden: ['src/adapters/', 'src/handlers/', 'src/local/', 'src/app/', 'src/lambda/', 'src/client/', 'src/notifications/', 'src/api-docs/', '@aws-sdk/', 'aws-cdk-lib'] },
  ...coreRoomRules,
  { from: 'src/adapters/', forbidden: ['src/handlers/', 'src/app/', 'src/lambda/', 'src/local/'] },
  { from: 'src/handlers/', forbidden: ['src/local/', 'src/app/', 'src/lambda/'] },
  { from: 'src/notifications/', forbidden: ['src/adapters/', 'src/handlers/', 'src/local/', 'src/app/', 'src/lambda/', 'src/client/', '@aws-sdk/'] },
  { from: 'src/app/', forbidden: ['src/local/', 'src/lambda/'] },
  { from: 'src/lambda/', onlyWithin: ['src/app/'] },
  // The generators read the contract, the catalog and the event envelope, never a composition or the runtime.
  { from: 'src/api-docs/', forbidden: ['src/adapters/', 'src/handlers/', 'src/app/', 'src/lambda/', 'src/local/', 'src/client/'] },
  { from: 'src/client/', forbidden: ['@aws-sdk/', 'node:'], allowTypeOnly: true, onlyWithin: ['src/client/'] },
];

/** Every import that breaks a rule, as `file -> target`. */
export function layerViolations(graph: ImportGraph, rules: readonly LayerRule[] = RULES): string[] {
  const violations: string[] = [];
  for (const [file, imports] of graph) {
    for (const rule of rules.filter((candidate) => file.startsWith(candidate.from))) {
      for (const edge of imports) {
        if (rule.allowTypeOnly && edge.typeOnly) continue;
        const outside = rule.onlyWithin !== undefined && edge.relative && !rule.onlyWithin.some((prefix) => edge.target.startsWith(prefix));
        const otherPackage = rule.onlyPackages !== undefined && !edge.relative && !rule.onlyPackages.includes(edge.target);
        const forbidden = (rule.forbidden ?? []).some((prefix) => edge.target.startsWith(prefix));
        const violation = `${file} -> ${edge.target}`;
        if ((outside || otherPackage || forbidden) && !violations.includes(violation)) violations.push(violation);
      }
    }
  }
  return violations;
}

/** Core modules outside any room of CORE_LAYERS (a new file goes into the room it belongs to). */
export function filesOutsideRooms(files: Iterable<string>): string[] {
  return [...files].filter((file) => file.startsWith('src/core/') && !Object.keys(CORE_LAYERS).some((room) => file.startsWith(`src/core/${room}/`)));
}

describe('architecture', () => {
  const graph = projectGraph();

  it('reads the imports of every module of src/ and lib/', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get('src/lambda/delivery.ts')!.map((edge) => edge.target)).toEqual(['src/app/delivery.ts']);
  });

  it('keeps the layers: contract at the bottom, core pure and its rooms layered, adapters below handlers and app, handlers apart from the local runtime, the client on its own', () => {
    expect(layerViolations(graph)).toEqual([]);
  });

  it('puts every core module in a room, and every room has a README saying what it owns', () => {
    expect(filesOutsideRooms(graph.keys())).toEqual([]);
    const rooms = readdirSync(join(ROOT, 'src/core'), { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
    expect(rooms.sort()).toEqual(Object.keys(CORE_LAYERS).sort());
    for (const room of rooms) expect(existsSync(join(ROOT, 'src/core', room, 'README.md')), room).toBe(true);
  });

  it('has no import cycle in src/ or lib/', () => {
    expect(findCycles(graph)).toEqual([]);
  });

  it('finds a cycle and a layer violation when there is one', () => {
    const edge = (target: string, typeOnly = false): Import => ({ target, typeOnly, relative: true });
    const synthetic: ImportGraph = new Map([
      ['src/core/a.ts', [edge('src/core/b.ts', true)]],
      ['src/core/b.ts', [edge('src/core/c.ts')]],
      ['src/core/c.ts', [edge('src/core/a.ts'), edge('src/adapters/dynamo/x.ts')]],
      ['src/adapters/dynamo/x.ts', [edge('src/adapters/dynamo/x.ts')]],
      ['src/client/y.ts', [edge('src/core/c.ts'), edge('src/core/a.ts', true)]],
    ]);
    expect(findCycles(synthetic)).toEqual(expect.arrayContaining([['src/core/a.ts', 'src/core/b.ts', 'src/core/c.ts'], ['src/adapters/dynamo/x.ts']]));
    expect(layerViolations(synthetic)).toEqual(['src/core/c.ts -> src/adapters/dynamo/x.ts', 'src/client/y.ts -> src/core/c.ts']);
    expect(filesOutsideRooms(synthetic.keys())).toEqual(['src/core/a.ts', 'src/core/b.ts', 'src/core/c.ts']);
  });

  it('finds a room importing a room above it or beside it, and a contract importing the project or a package', () => {
    const edge = (target: string, typeOnly = false): Import => ({ target, typeOnly, relative: !/^[@a-z]/.test(target) || target.startsWith('src/') });
    const synthetic: ImportGraph = new Map([
      // Allowed: a room's own files, the rooms below it, the contract; the contract's own files and zod.
      ['src/core/read/page.ts', [edge('src/core/read/cursor.ts'), edge('src/core/model/ids.ts'), edge('src/core/ports/inbox.ts', true), edge('src/contract/wire.ts', true)]],
      ['src/core/actions/marks.ts', [edge('src/core/read/view.ts'), edge('src/core/live/push.ts')]],
      ['src/contract/rest.ts', [edge('src/contract/ids.ts'), edge('zod')]],
      // Against the grain: read -> fanout (beside), model -> ports (above), live -> actions (above), type-only included.
      ['src/core/read/bad.ts', [edge('src/core/fanout/fanout-plan.ts')]],
      ['src/core/model/bad.ts', [edge('src/core/ports/inbox.ts', true)]],
      ['src/core/live/bad.ts', [edge('src/core/actions/inbox-actions.ts')]],
      // The contract imports nothing of the project but itself, and no package but zod.
      ['src/contract/bad.ts', [edge('src/core/model/ids.ts'), edge('ulid')]],
      // A Lambda entry imports its composition root only.
      ['src/lambda/bad.ts', [edge('src/handlers/fanout-handler.ts')]],
    ]);
    expect(layerViolations(synthetic)).toEqual([
      'src/core/read/bad.ts -> src/core/fanout/fanout-plan.ts',
      'src/core/model/bad.ts -> src/core/ports/inbox.ts',
      'src/core/live/bad.ts -> src/core/actions/inbox-actions.ts',
      'src/contract/bad.ts -> src/core/model/ids.ts',
      'src/contract/bad.ts -> ulid',
      'src/lambda/bad.ts -> src/handlers/fanout-handler.ts',
    ]);
  });

  it('reads static, type-only, re-export and dynamic imports', () => {
    const text = "import type { A } from './a.js';\nimport { B } from '../b.js';\nexport { C } from './c.js';\nconst d = await import('./d.js');\nimport 'node:fs';";
    expect(importsOf('src/core/x.ts', text)).toEqual([
      { target: 'src/core/a.ts', typeOnly: true, relative: true },
      { target: 'src/b.ts', typeOnly: false, relative: true },
      { target: 'src/core/c.ts', typeOnly: false, relative: true },
      { target: 'src/core/d.ts', typeOnly: false, relative: true },
      { target: 'node:fs', typeOnly: false, relative: false },
    ]);
  });
});
