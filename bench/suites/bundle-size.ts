/**
 * Lambda bundle sizes: every Lambda entry of src/lambda/functions.ts bundled with the exact esbuild settings
 * the CDK function construct uses (`lib/bundling.ts`), measured as the minified `index.mjs` that
 * ships (the source map is a separate file and is not loaded at cold start).
 */
import { build } from 'esbuild';
import { ESM_REQUIRE_BANNER, bundleSettings, handlerEntries } from '../../lib/bundling.js';
import { round, type BenchResult, type BenchSuite } from '../harness.js';

const TARGET_KB = 300;

async function bundledBytes(entry: string): Promise<{ bytes: number; biggest: string }> {
  const result = await build({
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
  return { bytes: code.contents.byteLength, biggest: `${biggestName} ${round(biggestBytes / 1024, 1)} KB` };
}

export const suite: BenchSuite = {
  id: 'bundle-size',
  title: 'Lambda bundle sizes',
  method: `
Every Lambda entry (\`src/lambda/<name>.ts\` of each function in \`src/lambda/functions.ts\`) is bundled with the
settings of the CDK function construct (\`lib/bundling.ts\`: esbuild, minified ESM for node22,
AWS SDK v3 external because the Lambda runtime provides it) and the size of the \`index.mjs\` that
ships is reported in KB (1024 bytes). Target: <= ${TARGET_KB} KB per handler. The note names the
largest package in the bundle.
`,
  async run(): Promise<BenchResult[]> {
    const results: BenchResult[] = [];
    for (const entry of handlerEntries()) {
      const { bytes, biggest } = await bundledBytes(entry.path);
      const kb = round(bytes / 1024, 1);
      results.push({ name: `bundle.kb.${entry.name}`, value: kb, unit: 'KB', note: `${kb <= TARGET_KB ? 'within' : 'OVER'} target ${TARGET_KB} KB; largest: ${biggest}` });
    }
    return results;
  },
};
