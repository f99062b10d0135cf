/**
 * `npm run --silent token -- --tenant <t> --user <u> [--ttl <seconds>] [--email <address>]`: prints a
 * JWT the local runtime accepts, signed with the key of the runtime's DATA_DIR: the one named by
 * DATA_DIR, else the one of the runtime running from this directory (`.local/running.json`). With
 * neither it refuses, instead of signing with a key no runtime checks.
 */
import { parseArgs } from 'node:util';
import { readRunningRuntime } from './running-runtime.js';
import { readLocalSecrets } from './signing-key.js';

const USAGE = `usage: npm run --silent token -- --tenant <tenant> --user <user> [--ttl <seconds>] [--email <verified address>]

Prints a JWT for the local runtime (npm start), signed with its key:
  DATA_DIR set      the key in that data directory (a runtime has started on it)
  DATA_DIR unset    the key of the runtime running from this directory (.local/running.json)

  --tenant <id>     tenant claim (custom:tenantId)
  --user <id>       subject (sub)
  --ttl <seconds>   lifetime, default 3600
  --email <addr>    a verified email claim (for the email channel)
  --phone <e164>    a verified phone_number claim (for the SMS channel), e.g. +14155550123
  -h, --help        this text
`;

function fail(message: string, code = 2): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

let values: { tenant?: string; user?: string; ttl?: string; email?: string; phone?: string; help?: boolean };
try {
  ({ values } = parseArgs({
    options: { tenant: { type: 'string' }, user: { type: 'string' }, ttl: { type: 'string', default: '3600' }, email: { type: 'string' }, phone: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  }));
} catch (error) {
  fail(`${(error as Error).message}\n\n${USAGE}`);
}
if (values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
if (!values.tenant || !values.user) fail(`--tenant and --user are required\n\n${USAGE}`);
const ttlSeconds = Number(values.ttl);
if (!Number.isInteger(ttlSeconds) || ttlSeconds <= 0) fail(`--ttl must be a whole number of seconds, got ${values.ttl}`);

const explicitDataDir = process.env.DATA_DIR?.trim();
const running = explicitDataDir ? undefined : await readRunningRuntime();
const dataDir = explicitDataDir || running?.dataDir;
if (!dataDir) fail('no local runtime is running from this directory (.local/running.json): start it with `npm start`, or set DATA_DIR to the data directory of the runtime that will check the token', 1);
let secrets: Awaited<ReturnType<typeof readLocalSecrets>>;
try {
  secrets = await readLocalSecrets(dataDir);
} catch (error) {
  fail(`${(error as Error).message}; start it with \`DATA_DIR=${dataDir} npm start\` first`, 1);
}
process.stdout.write(`${await secrets.issueToken({ tenantId: values.tenant, userId: values.user, ttlSeconds, ...(values.email ? { email: values.email } : {}), ...(values.phone ? { phoneNumber: values.phone } : {}) })}\n`);
