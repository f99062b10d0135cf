/**
 * Lambda bundle sizes: every Lambda entry of src/lambda/functions.ts bundled with the exact esbuild settings
 * the CDK function construct uses (`lib/bundling.ts`), measured as the minified `index.mjs` that
 * ships (the source map is a separate file and is not loaded at cold start).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, type Plugin } from 'esbuild';
import { ESM_REQUIRE_BANNER, PROJECT_ROOT, bundleSettings, entryPath, handlerEntries } from '../../lib/bundling.js';
import { packageSourcesPlugin } from '../../src/local/catalog-entry.js';
import { round, type BenchResult, type BenchSuite } from '../harness.js';

const TARGET_KB = 300;

/** A team's catalog module in place of the package's, as the construct aliases it (`catalogEntry`). */
interface CatalogAlias {
  entry: string;
  plugins: Plugin[];
}

/** Text only each built-in type's code holds (its render), to tell which types a bundle carries. */
const BUILT_IN_MARKERS: Record<string, string> = {
  'mention.created': 'mentioned you',
  'comment.created': 'commented on your post',
  'post.published': 'published a post',
  'follow.created': 'followed you',
};

async function bundledBytes(entry: string, catalog?: CatalogAlias): Promise<{ bytes: number; biggest: string; builtInTypes: string[] }> {
  const result = await build({
    ...(catalog ? { alias: { '#notifications-catalog': catalog.entry }, plugins: catalog.plugins, nodePaths: [join(PROJECT_ROOT, 'node_modules')] } : {}),
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    target: bundleSettings.target,
    format: bundleSettings.format,
    minify: bundleSettings.minify,
    sourcemap: bundleSettings.sourceMap,
    sourcesContent: bundleSettings.sourcesContent,
    mainFields: [...bundleSettings.mainFields],
    banner: { js: ESM_REQUIRE_BANNER },
    external: [...bundleSettings.externals],
    outfile: 'index.mjs',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const code = result.outputFiles.find((file) => file.path.endsWith('.mjs'))!;
  // The largest package in the bundle, so a regression names its cause.
  const byPackage = new Map<string, number>();
  for (const [input, { bytesInOutput }] of Object.entries(Object.values(result.metafile.outputs).find((output) => output.entryPoint)!.inputs)) {
    const name = input.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/)?.[1] ?? 'src';
    byPackage.set(name, (byPackage.get(name) ?? 0) + bytesInOutput);
  }
  const [biggestName, biggestBytes] = [...byPackage].sort((a, b) => b[1] - a[1])[0]!;
  const text = code.text;
  const builtInTypes = Object.entries(BUILT_IN_MARKERS)
    .filter(([, marker]) => text.includes(marker))
    .map(([type]) => type);
  return { bytes: code.contents.byteLength, biggest: `${biggestName} ${round(biggestBytes / 1024, 1)} KB`, builtInTypes };
}

/**
 * The fan-out function with a team catalog (examples/team-catalog: `invoice.paid` and the follow
 * types) taking the built-in types from their own entries, and the same catalog taking them from
 * the `catalog/built-in` list: what a bundle carries either way.
 */
async function teamCatalogBundles(): Promise<BenchResult[]> {
  const plugins = [packageSourcesPlugin(PROJECT_ROOT)];
  const perType = join(PROJECT_ROOT, 'examples', 'team-catalog', 'notifications', 'index.ts');
  const dir = await mkdtemp(join(tmpdir(), 'bundle-size-catalog-'));
  try {
    const fromList = join(dir, 'index.ts');
    await writeFile(
      fromList,
      `import { followCreated, followDeleted } from 'serverless-notifications/catalog/built-in';\nimport { invoicePaid } from '${join(PROJECT_ROOT, 'examples', 'team-catalog', 'notifications', 'invoice-paid.js')}';\nexport const catalog = [invoicePaid, followCreated, followDeleted];\n`,
    );
    const results: BenchResult[] = [];
    for (const [name, entry] of [['per-type-entries', perType], ['built-in-list', fromList]] as const) {
      const { bytes, builtInTypes } = await bundledBytes(entryPath('fanout'), { entry, plugins });
      const kb = round(bytes / 1024, 1);
      results.push({ name: `bundle.kb.fanout.team-catalog.${name}`, value: kb, unit: 'KB', note: `built-in types in the bundle: ${builtInTypes.join(', ') || 'none'}` });
    }
    return results;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export const suite: BenchSuite = {
  id: 'bundle-size',
  title: 'Lambda bundle sizes',
  method: `
Every Lambda entry (\`src/lambda/<name>.ts\` of each function in \`src/lambda/functions.ts\`) is bundled with the
settings of the CDK function construct (\`lib/bundling.ts\`: esbuild, minified ESM for node22,
AWS SDK v3 external because the Lambda runtime provides it) and the size of the \`index.mjs\` that
ships is reported in KB (1024 bytes). Target: <= ${TARGET_KB} KB per handler. The note names the
largest package in the bundle. Then the fan-out function with a team's catalog module
(\`examples/team-catalog\`: \`invoice.paid\` plus the two follow types), aliased as the construct's
\`catalogEntry\` does: once taking the follow types from their own entries
(\`serverless-notifications/catalog/built-in/follow-created\`), once from the
\`serverless-notifications/catalog/built-in\` list; the note names the built-in types the bundle carries.
`,
  async run(): Promise<BenchResult[]> {
    const results: BenchResult[] = [];
    for (const entry of handlerEntries()) {
      const { bytes, biggest } = await bundledBytes(entry.path);
      const kb = round(bytes / 1024, 1);
      results.push({ name: `bundle.kb.${entry.name}`, value: kb, unit: 'KB', note: `${kb <= TARGET_KB ? 'within' : 'OVER'} target ${TARGET_KB} KB; largest: ${biggest}` });
    }
    results.push(...(await teamCatalogBundles()));
    return results;
  },
};
