/**
 * What a deployed bundle imports from outside itself. On Lambda (Node.js 22) a bundle can reach
 * only Node's built-in modules and the AWS SDK for JavaScript v3 the runtime ships (`@aws-sdk/*`,
 * with the `@smithy/*` packages it is made of); here it would find the whole of the project's
 * node_modules. So before the deployed-bundles mode imports a bundle it lists the bundle's bare
 * imports (static, dynamic and `require`, read by esbuild itself, not by a pattern over minified
 * code) and refuses one the Lambda runtime would not have: a module left out of a bundle fails the
 * run here as it would fail the function's first invocation on AWS.
 */
import { builtinModules } from 'node:module';
import { build } from 'esbuild';

/** The package prefixes the Node.js 22 Lambda runtime provides (lib/bundling.ts leaves exactly these out of the bundles). */
export const LAMBDA_PROVIDED_PACKAGES = ['@aws-sdk/', '@smithy/'];

const BUILTINS = new Set(builtinModules);

/** Whether the Lambda runtime resolves `specifier` without the bundle. */
export function providedByLambda(specifier: string): boolean {
  if (specifier.startsWith('node:')) return true;
  if (BUILTINS.has(specifier.split('/')[0]!)) return true;
  return LAMBDA_PROVIDED_PACKAGES.some((prefix) => specifier.startsWith(prefix));
}

/** Every module `file` imports that is neither in it nor provided by the Lambda runtime (a relative import counts: a bundle is one file). */
export async function unprovidedImports(file: string): Promise<string[]> {
  const found = new Set<string>();
  await build({
    entryPoints: [file],
    bundle: true,
    write: false,
    platform: 'node',
    format: 'esm',
    logLevel: 'silent',
    plugins: [
      {
        name: 'lambda-provided',
        setup(builder) {
          builder.onResolve({ filter: /.*/ }, (args) => {
            if (args.kind === 'entry-point') return undefined;
            if (!providedByLambda(args.path)) found.add(args.path);
            return { path: args.path, external: true };
          });
        },
      },
    ],
  });
  return [...found].sort();
}
