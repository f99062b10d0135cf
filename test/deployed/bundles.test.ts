/**
 * The deployed-bundles run itself (`npm run test:deployed`): the runtimes it starts load the
 * bundles of its cdk.out, requests run that code (not the sources), and a broken bundle -- one that
 * imports a module the Lambda runtime does not provide, one that throws as it loads, one that is
 * missing -- fails the start with the function named, so the run cannot pass on a bundle that would
 * fail on AWS.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENV } from '../../src/env.js';
import { LOCAL_DEPLOYMENT_FILE, type LocalDeploymentMap } from '../../src/local/deployed/local-deployment.js';
import { startLocalRuntime } from '../../src/local/runtime.js';
import { localSettingsFromEnv } from '../../src/local/settings.js';
import { alice } from '../support/fixtures.js';
import { call } from '../support/http.js';

const cdkOut = process.env[ENV.LOCAL_FUNCTIONS]!;
let map: LocalDeploymentMap;
let scratch: string;

beforeAll(async () => {
  expect(cdkOut, 'npm run test:deployed sets LOCAL_FUNCTIONS').toBeTruthy();
  map = JSON.parse(await readFile(join(cdkOut, LOCAL_DEPLOYMENT_FILE), 'utf8')) as LocalDeploymentMap;
  scratch = await mkdtemp(join(tmpdir(), 'deployed-bundles-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** A copy of the run's cdk.out with one function's bundle rewritten. */
async function copyWith(principal: string, rewrite: (bundle: string) => string | undefined): Promise<string> {
  const copy = await mkdtemp(join(scratch, 'cdk.out-'));
  await cp(cdkOut, copy, { recursive: true });
  const file = join(copy, map.functions[principal]!.assetDir!, 'index.mjs');
  const rewritten = rewrite(await readFile(file, 'utf8'));
  if (rewritten === undefined) await rm(file);
  else await writeFile(file, rewritten);
  return copy;
}

async function startFrom(functionsFrom: string) {
  return startLocalRuntime({ ...localSettingsFromEnv({}), port: 0, wsPort: 0, dataDir: await mkdtemp(join(scratch, 'data-')), functionsFrom });
}

describe('the deployed-bundles run', () => {
  it('starts every runtime from the bundles of its cdk.out: one for each function of the template', async () => {
    // Act
    const runtime = await startLocalRuntime({ ...localSettingsFromEnv({}), port: 0, wsPort: 0, dataDir: await mkdtemp(join(scratch, 'data-')) });
    try {
      const answer = await call(runtime.endpoints.http, 'GET', '/notifications/counts', { token: await runtime.secrets.issueToken(alice) });

      // Assess
      expect(runtime.functionsFrom).toBe(cdkOut);
      expect(answer.status).toBe(200);
      expect(Object.keys(map.functions).length).toBeGreaterThanOrEqual(15);
      expect(Object.values(map.functions).every((fn) => fn.assetDir?.startsWith('asset.'))).toBe(true);
    } finally {
      await runtime.close();
    }
  });

  it('answers a request with the code of the bundle, each function seeing its own environment when invoked, in two runtimes of one process', async () => {
    // Prepare: rest-read's bundle replaced by one that answers 418 with what its environment says at invocation.
    const copy = await copyWith(
      'rest-read',
      () => `export const handler = async () => ({ statusCode: 418, body: JSON.stringify({ dynamo: process.env.AWS_ENDPOINT_URL_DYNAMODB, table: process.env.${ENV.INBOX_TABLE} }) });\n`,
    );
    const first = await startFrom(copy);
    const second = await startFrom(copy);
    try {
      // Act: the first runtime's function invoked after the second runtime loaded its own.
      const fromFirst = await call(first.endpoints.http, 'GET', '/notifications', { token: await first.secrets.issueToken(alice) });
      const fromSecond = await call(second.endpoints.http, 'GET', '/notifications', { token: await second.secrets.issueToken(alice) });

      // Assess
      expect(fromFirst).toMatchObject({ status: 418, body: { dynamo: first.dynamo.endpoint, table: first.dynamo.tableNames.inbox } });
      expect(fromSecond).toMatchObject({ status: 418, body: { dynamo: second.dynamo.endpoint, table: second.dynamo.tableNames.inbox } });
      expect(first.dynamo.endpoint).not.toBe(second.dynamo.endpoint);
    } finally {
      await second.close();
      await first.close();
    }
  });

  it('refuses a bundle that imports a module the Lambda runtime does not provide, naming the function and the module', async () => {
    // Prepare: rest-write's bundle with a dependency left out of it (as if marked external).
    const copy = await copyWith('rest-write', (bundle) => `import { ulid as __left_out } from 'ulid';\n${bundle}`);

    // Act, Assess
    await expect(startFrom(copy)).rejects.toThrow(/rest-write: asset\.[0-9a-f]+\/index\.mjs imports ulid, which the Lambda runtime does not provide/);
  });

  it('refuses a bundle that throws as it loads, and a missing bundle', async () => {
    // Prepare
    const throwing = await copyWith('channel:push', (bundle) => `${bundle}\nthrow new Error('the push bundle is broken');\n`);
    const missing = await copyWith('ws-connect', () => undefined);

    // Act, Assess
    await expect(startFrom(throwing)).rejects.toThrow('the push bundle is broken');
    await expect(startFrom(missing)).rejects.toThrow(/ws-connect.*index\.mjs/);
  });

  it('starts again from the good bundles after a failed start (the failed one closed what it had started)', async () => {
    // Act
    const runtime = await startFrom(cdkOut);

    // Assess
    try {
      expect((await call(runtime.endpoints.http, 'GET', '/notifications/counts', { token: await runtime.secrets.issueToken(alice) })).status).toBe(200);
    } finally {
      await runtime.close();
    }
  });
});
