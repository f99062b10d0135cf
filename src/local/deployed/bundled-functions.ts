/**
 * The deployed-bundles mode of the local runtime (`LOCAL_FUNCTIONS=<cdk.out>`): every function is
 * the esbuild bundle `npm run synth:local` wrote (what `cdk deploy` would upload), imported with the
 * environment the synthesized template gives it, its references resolved to the local resources
 * (tables, queue URLs and ARNs, the schedule group and roles, the secrets), and only the endpoints
 * and the local settings put on top (the same values the source mode composes with). The SDK inside
 * the bundles is pointed at the local stand-ins the way it would be at AWS, through the standard
 * variables (AWS_REGION, credentials, AWS_ENDPOINT_URL_<SERVICE>).
 *
 * Differences kept: the bundles share this process (each is imported as its own module instance
 * and sees its own environment while it loads and runs: function-environment.ts); their SDK calls are not recorded (the least-privilege check records the source mode); the
 * AWS SDK they import (left out of the bundles, as Lambda provides it) is the project's installed
 * version, not the one the Lambda runtime ships. A bundle that imports anything else from outside
 * itself is refused (bundle-imports.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Context } from 'aws-lambda';
import { ENV } from '../../env.js';
import type { TableName } from '../../table-specs.js';
import type { LocalFunctionSet } from '../function-set.js';
import { LOCAL_SCHEDULE_GROUP, LOCAL_SCHEDULER_ROLES } from '../scheduler/scheduler-api.js';
import { localLambdaContext } from '../sqs/lambda-context.js';
import { LOCAL_ACCOUNT_ID } from '../sqs/local-account.js';
import { unprovidedImports } from './bundle-imports.js';
import { withFunctionEnvironment } from './function-environment.js';
import { resolveCfn, type CfnWorld } from './cfn-resolve.js';
import { LOCAL_DEPLOYMENT_FILE, type LocalDeploymentMap, type LocalResource } from './local-deployment.js';

type Secrets = Record<Extract<LocalResource, { kind: 'secret' }>['secret'], string>;

/** The local runtime's resources, endpoints and settings the bundles are given. */
export interface BundleWorld {
  region: string;
  tables: Record<TableName, string>;
  /** The URL and ARN of a local queue by name. */
  queue(name: string): { url: string; arn: string } | undefined;
  secrets: Secrets;
  /** The SDK variables every function gets: region, credentials (the local stand-ins' signing credentials), AWS_ENDPOINT_URL_<SERVICE>. */
  sdkEnv: Record<string, string>;
  /** Variables a function gets on top of its template's (given them): endpoints (JWKS, @connections, SNS, SES, unsubscribe base) and local settings. */
  overrides(templateVariables: Readonly<Record<string, string>>): Record<string, string>;
  /** A function's timeout, for its Lambda context. */
  functionTimeoutMs: number;
}

interface TemplateResource {
  Properties?: { Environment?: { Variables?: Record<string, unknown> } } & Record<string, unknown>;
}

/** The properties a template resource may carry its physical name in (then the environment holds that literal, not a reference). */
const NAME_PROPERTIES = ['Name', 'TableName', 'QueueName', 'RoleName'];

/** A bundled handler: Lambda's (event, context) signature. */
type BundledHandler = (event: unknown, context: Context) => Promise<unknown>;

const SECRET_REFERENCE = /\{\{resolve:secretsmanager:local-secret:([A-Za-z]+):SecretString:::\}\}/g;

/** The value of each template reference in the local world (`unmapped:<id>` for a resource the local runtime has no stand-in for). */
function localWorld(map: LocalDeploymentMap, world: BundleWorld): CfnWorld {
  return {
    region: world.region,
    accountId: LOCAL_ACCOUNT_ID,
    lookup(logicalId, attribute) {
      const resource = map.resources[logicalId];
      const arn = (service: string, name: string) => `arn:aws:${service}:${world.region}:${LOCAL_ACCOUNT_ID}:${name}`;
      switch (resource?.kind) {
        case 'table':
          return attribute === 'Arn' ? arn('dynamodb', `table/${world.tables[resource.table]}`) : world.tables[resource.table];
        case 'queue': {
          const queue = world.queue(resource.queue);
          if (!queue) return undefined;
          return attribute === 'Arn' ? queue.arn : attribute === 'QueueName' ? resource.queue : queue.url;
        }
        case 'deadLetterQueue':
          return attribute === 'Arn' ? arn('sqs', `${resource.of}-dlq`) : `unmapped:${logicalId}`;
        case 'schedulerRole':
          return LOCAL_SCHEDULER_ROLES[resource.role];
        case 'scheduleGroup':
          return attribute === 'Arn' ? arn('scheduler', `schedule-group/${LOCAL_SCHEDULE_GROUP}`) : LOCAL_SCHEDULE_GROUP;
        case 'secret':
          return `local-secret:${resource.secret}`;
        default:
          return `unmapped:${logicalId}`;
      }
    },
  };
}

/**
 * The local value of each physical name the template spells out (a schedule group's generated
 * name): an environment variable holding one gets the local resource's name instead.
 */
function literalNames(template: { Resources: Record<string, TemplateResource> }, map: LocalDeploymentMap, world: CfnWorld): Map<string, string> {
  const names = new Map<string, string>();
  for (const logicalId of Object.keys(map.resources)) {
    const properties = template.Resources[logicalId]?.Properties ?? {};
    const literal = NAME_PROPERTIES.map((property) => properties[property]).find((value): value is string => typeof value === 'string');
    const local = world.lookup(logicalId);
    if (literal && local && !local.startsWith('unmapped:')) names.set(literal, local);
  }
  return names;
}

/** Each function's environment: the template's, resolved locally, with the overrides on top; refuses a value with no local stand-in. */
function environmentOf(principal: string, template: { Resources: Record<string, TemplateResource> }, map: LocalDeploymentMap, world: BundleWorld): Record<string, string> {
  const logicalId = map.functions[principal]!.logicalId;
  const cfnWorld = localWorld(map, world);
  const literals = literalNames(template, map, cfnWorld);
  const resolved = resolveCfn(template.Resources[logicalId]?.Properties?.Environment?.Variables ?? {}, cfnWorld) as Record<string, string>;
  const variables = Object.fromEntries(Object.entries(resolved).map(([name, value]) => [name, literals.get(String(value)) ?? String(value)]));
  const environment = Object.fromEntries(
    Object.entries({ ...variables, ...world.overrides(variables) }).map(([name, value]) => [name, String(value).replace(SECRET_REFERENCE, (_match, kind: keyof Secrets) => world.secrets[kind])]),
  );
  const unmapped = Object.entries(environment).filter(([, value]) => value.includes('unmapped:') || value.includes('local-secret:'));
  if (unmapped.length > 0) throw new Error(`${principal}: no local value for ${unmapped.map(([name, value]) => `${name}=${value}`).join(', ')}`);
  return environment;
}

/** Runtimes started in this process so far: each imports its own module instances (a second runtime has other tables and keys). */
let runtimesLoaded = 0;

/** Imports one bundle as its own module instance, with its function's environment while the module body builds the handler. */
async function importBundle(cdkOut: string, assetDir: string, instance: string, environment: Record<string, string>): Promise<BundledHandler> {
  const principal = instance.split('@')[0]!;
  const url = `${pathToFileURL(join(cdkOut, assetDir, 'index.mjs')).href}?function=${encodeURIComponent(instance)}`;
  const bundle = (await withFunctionEnvironment(environment, () => import(url))) as { handler?: BundledHandler };
  if (typeof bundle.handler !== 'function') throw new Error(`${principal}: ${assetDir}/index.mjs exports no handler`);
  const handler = bundle.handler;
  return (event, context) => withFunctionEnvironment(environment, () => handler(event, context));
}

export interface BundledFunctions {
  functions: LocalFunctionSet;
}

/** The local deployment `npm run synth:local` wrote in `cdkOut` (read before the runtime starts anything, so a wrong directory fails at once). */
export function readLocalDeployment(cdkOut: string): LocalDeploymentMap {
  try {
    return JSON.parse(readFileSync(join(cdkOut, LOCAL_DEPLOYMENT_FILE), 'utf8')) as LocalDeploymentMap;
  } catch (error) {
    throw new Error(`${ENV.LOCAL_FUNCTIONS}=${cdkOut}: no ${LOCAL_DEPLOYMENT_FILE} there (run npm run synth:local first): ${(error as Error).message}`);
  }
}

/**
 * Refuses a deployment with a function without a bundle, or a bundle that imports what the Lambda
 * runtime does not provide (bundle-imports.ts): it would fail its first invocation on AWS.
 */
export async function checkBundleImports(cdkOut: string, map: LocalDeploymentMap): Promise<void> {
  const assetDirs = new Map<string, string>();
  for (const [principal, fn] of Object.entries(map.functions)) {
    if (!fn.assetDir) throw new Error(`${principal} has no bundle in ${cdkOut} (synthesized without bundling?)`);
    assetDirs.set(fn.assetDir, assetDirs.has(fn.assetDir) ? `${assetDirs.get(fn.assetDir)}, ${principal}` : principal);
  }
  for (const [assetDir, principals] of assetDirs) {
    if (!existsSync(join(cdkOut, assetDir, 'index.mjs'))) throw new Error(`${principals}: no bundle at ${join(cdkOut, assetDir, 'index.mjs')}`);
    const missing = await unprovidedImports(join(cdkOut, assetDir, 'index.mjs'));
    if (missing.length > 0) throw new Error(`${principals}: ${assetDir}/index.mjs imports ${missing.join(', ')}, which the Lambda runtime does not provide (left out of the bundle)`);
  }
}

/** Every function of the local deployment map, from its bundle. */
export async function bundledFunctions(cdkOut: string, map: LocalDeploymentMap, world: BundleWorld): Promise<BundledFunctions> {
  const template = JSON.parse(readFileSync(join(cdkOut, map.templateFile), 'utf8')) as { Resources: Record<string, TemplateResource> };
  const handlers = new Map<string, BundledHandler>();
  runtimesLoaded += 1;
  for (const [principal, fn] of Object.entries(map.functions)) {
    if (!fn.assetDir) throw new Error(`${principal} has no bundle in ${cdkOut} (synthesized without bundling?)`);
    // The erase and export job runs from the sources in this mode too (its export bucket and SNS have no
    // local resource in the map yet); its bundle's imports are still checked (checkBundleImports).
    if (principal === 'privacy-job') continue;
    const environment = { ...world.sdkEnv, ...environmentOf(principal, template, map, world) };
    handlers.set(principal, await importBundle(cdkOut, fn.assetDir, `${principal}@${runtimesLoaded}`, environment));
  }
  const invoke = (principal: string) => {
    const handler = handlers.get(principal);
    if (!handler) throw new Error(`no bundled function ${principal} in ${cdkOut}`);
    return (event: unknown, context?: Context) => handler(event, context ?? localLambdaContext(principal, world.functionTimeoutMs));
  };
  // Each handler is called with the event shape its route gives it, as Lambda would.
  const typed = <Handler>(principal: string) => invoke(principal) as unknown as Handler;
  const functions: LocalFunctionSet = {
    from: cdkOut,
    authorizer: typed('authorizer'),
    restRead: typed('rest-read'),
    restWrite: typed('rest-write'),
    restPreferences: typed('rest-preferences'),
    wsConnect: typed('ws-connect'),
    wsDisconnect: typed('ws-disconnect'),
    wsDefault: typed('ws-default'),
    fanOut: (detailType) => typed(`fanout:${detailType}`),
    promotion: () => typed('celebrity-promotion'),
    delivery: (mode) => typed(`delivery:${mode}`),
    channel: (channel) => typed(`channel:${channel}`),
  };
  return { functions };
}
