/**
 * `npm run deploy:localstack`: bootstraps and deploys both stacks to LocalStack with cdklocal, in
 * the configuration LocalStack's free plan can run (`jwt` auth with the local signing key, no
 * WebSocket API, tables destroyed with the stack), and writes the outputs to
 * `.local/localstack-outputs.json` for `npm run test:localstack`.
 *
 * Env: LOCALSTACK_ENDPOINT (default http://localhost:4566), LOCALSTACK_JWKS_URL (where LocalStack's
 * Lambda containers fetch the JWKS the suite serves; default http://host.docker.internal:4599/jwks.json),
 * LOCALSTACK_LIVE_DELIVERY=true to also deploy the WebSocket API (paid plans).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { LOCAL_AUDIENCE, LOCAL_ISSUER } from '../src/local/signing-key.js';
import { LOCALSTACK_OUTPUTS_FILE, localstackEndpoint, localstackJwksUrl, probeLocalStack } from '../test/localstack/environment.js';

const endpoint = localstackEndpoint();
const probe = await probeLocalStack(endpoint);
if (!probe.reachable) {
  process.stderr.write(
    `LocalStack is not reachable at ${endpoint} (${probe.reason}).\n` +
      'Start it first, e.g. `LOCALSTACK_AUTH_TOKEN=<token> localstack start -d` (LocalStack now requires an auth token),\n' +
      'or set LOCALSTACK_ENDPOINT.\n',
  );
  process.exit(1);
}

const context = {
  authMode: 'jwt',
  jwtIssuer: LOCAL_ISSUER,
  jwtAudience: LOCAL_AUDIENCE,
  jwksUrl: localstackJwksUrl(),
  liveDelivery: process.env.LOCALSTACK_LIVE_DELIVERY === 'true' ? 'true' : 'false',
  removalPolicy: 'destroy',
};
const contextArgs = Object.entries(context).flatMap(([key, value]) => ['-c', `notifications:${key}=${value}`]);
const env = {
  ...process.env,
  AWS_ENDPOINT_URL: endpoint,
  AWS_ACCESS_KEY_ID: process.env.AWS_ACCESS_KEY_ID ?? 'test',
  AWS_SECRET_ACCESS_KEY: process.env.AWS_SECRET_ACCESS_KEY ?? 'test',
  AWS_REGION: process.env.AWS_REGION ?? 'us-east-1',
  AWS_DEFAULT_REGION: process.env.AWS_DEFAULT_REGION ?? process.env.AWS_REGION ?? 'us-east-1',
};

function run(args: string[]): void {
  process.stdout.write(`$ cdklocal ${args.join(' ')}\n`);
  const result = spawnSync('npx', ['cdklocal', ...args], { stdio: 'inherit', env });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

mkdirSync('.local', { recursive: true });
run(['bootstrap', ...contextArgs]);
run(['deploy', '--all', '--require-approval', 'never', '--outputs-file', LOCALSTACK_OUTPUTS_FILE, ...contextArgs]);
process.stdout.write(`outputs written to ${LOCALSTACK_OUTPUTS_FILE}; run \`npm run test:localstack\`\n`);
