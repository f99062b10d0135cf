/**
 * `npm run synth:local [-- --outdir <dir>]`: synthesizes the stack the local runtime stands in for
 * (`local-stack.ts`) WITH its esbuild bundles, as `cdk deploy` would ship them, into `cdk.out`, and
 * writes `local-deployment.json` beside the template: which local resource each template resource
 * stands for, and each function's bundle directory. `LOCAL_FUNCTIONS=cdk.out npm start` then runs
 * the bundles instead of the sources (`npm run test:deployed` runs the core e2e cases through them).
 */
import { existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { LAMBDA_PROVIDED_PACKAGES } from '../../src/local/deployed/bundle-imports.js';
import { LOCAL_DEPLOYMENT_FILE } from '../../src/local/deployed/local-deployment.js';
import { buildLocalStack, resourceMap, synthesizeLocalStack } from './local-stack.js';

const { values } = parseArgs({ options: { outdir: { type: 'string', default: 'cdk.out' } } });
const outdir = resolve(values.outdir!);
const started = Date.now();
const built = buildLocalStack({ bundle: true, outdir });
const { template, directory } = synthesizeLocalStack(built);

/** A function's code is `<hash>.zip` in the template and `asset.<hash>/` in the assembly. */
function assetDirOf(logicalId: string): string | undefined {
  const code = (template.Resources[logicalId]?.Properties as { Code?: { S3Key?: unknown } } | undefined)?.Code;
  const hash = typeof code?.S3Key === 'string' ? code.S3Key.replace(/\.zip$/, '') : undefined;
  if (!hash) return undefined;
  const dir = `asset.${hash}`;
  if (!existsSync(join(directory, dir, 'index.mjs'))) throw new Error(`${logicalId}: no bundle at ${join(directory, dir, 'index.mjs')}`);
  return dir;
}

const map = resourceMap(built, template, assetDirOf);
const unbundled = Object.entries(map.functions).filter(([, fn]) => !fn.assetDir);
if (unbundled.length > 0) throw new Error(`no bundle for ${unbundled.map(([principal]) => principal).join(', ')}`);
writeFileSync(join(directory, LOCAL_DEPLOYMENT_FILE), `${JSON.stringify(map, null, 2)}\n`);
// The AWS SDK the Node.js 22 Lambda runtime provides (the bundles leave it out): the project's, linked
// beside the bundles so they resolve it wherever the cdk.out is (the deployed-bundles mode refuses any other import).
for (const scope of LAMBDA_PROVIDED_PACKAGES.map((prefix) => prefix.replace(/\/$/, ''))) {
  const link = join(directory, 'node_modules', scope);
  mkdirSync(join(directory, 'node_modules'), { recursive: true });
  rmSync(link, { recursive: true, force: true });
  symlinkSync(resolve('node_modules', scope), link, 'dir');
}
process.stdout.write(`synthesized ${map.stackName} with ${Object.keys(map.functions).length} bundled functions into ${directory} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
