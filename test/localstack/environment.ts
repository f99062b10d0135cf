/**
 * Where the LocalStack deployment is and what it needs: shared by `bin/deploy-localstack.ts` and the
 * suite, so both agree on the endpoint, the outputs file and the JWKS URL.
 */
import { readFile } from 'node:fs/promises';

export const LOCALSTACK_OUTPUTS_FILE = '.local/localstack-outputs.json';
export const DEFAULT_JWKS_PORT = 4599;

export function localstackEndpoint(env: NodeJS.ProcessEnv = process.env): string {
  return (env.LOCALSTACK_ENDPOINT ?? 'http://localhost:4566').replace(/\/+$/, '');
}

export function jwksPort(env: NodeJS.ProcessEnv = process.env): number {
  return Number(env.LOCALSTACK_JWKS_PORT ?? DEFAULT_JWKS_PORT);
}

/** The JWKS URL as seen from LocalStack's Lambda containers (the suite serves the key there). */
export function localstackJwksUrl(env: NodeJS.ProcessEnv = process.env): string {
  return env.LOCALSTACK_JWKS_URL ?? `http://host.docker.internal:${jwksPort(env)}/jwks.json`;
}

export type Probe = { reachable: true; services: Record<string, string> } | { reachable: false; reason: string };

/** GET /_localstack/health with a short timeout: reachable, and which services are available. */
export async function probeLocalStack(endpoint: string): Promise<Probe> {
  try {
    const response = await fetch(`${endpoint}/_localstack/health`, { signal: AbortSignal.timeout(2_000) });
    if (!response.ok) return { reachable: false, reason: `health check answered ${response.status}` };
    const body = (await response.json()) as { services?: Record<string, string> };
    return { reachable: true, services: body.services ?? {} };
  } catch (error) {
    return { reachable: false, reason: (error as Error).message };
  }
}

/** Stack outputs flattened over both stacks (`cdk deploy --outputs-file` nests them per stack). */
export async function readStackOutputs(file = LOCALSTACK_OUTPUTS_FILE): Promise<Record<string, string> | undefined> {
  try {
    const byStack = JSON.parse(await readFile(file, 'utf8')) as Record<string, Record<string, string>>;
    return Object.assign({}, ...Object.values(byStack));
  } catch {
    return undefined;
  }
}

/**
 * The REST base URL on LocalStack: the stack output is the AWS form
 * `https://{id}.execute-api.{region}.amazonaws.com/{stage}/`; LocalStack serves it at
 * `{endpoint}/restapis/{id}/{stage}/_user_request_/`.
 */
export function localstackRestUrl(restApiUrl: string, endpoint: string): string {
  const match = restApiUrl.match(/^https?:\/\/([^.]+)\.execute-api\.[^/]+\/([^/]+)\/?/);
  if (!match) return restApiUrl;
  return `${endpoint}/restapis/${match[1]}/${match[2]}/_user_request_/`;
}
