/** `npm run --silent token -- --tenant <t> --user <u> [--ttl <seconds>] [--email <verified address>]`: prints a local JWT. */
import { parseArgs } from 'node:util';
import { localSettingsFromEnv } from './settings.js';
import { loadLocalSecrets } from './signing-key.js';

const { values } = parseArgs({
  options: { tenant: { type: 'string' }, user: { type: 'string' }, ttl: { type: 'string', default: '3600' }, email: { type: 'string' } },
});
if (!values.tenant || !values.user) {
  process.stderr.write('usage: npm run --silent token -- --tenant <tenant> --user <user> [--ttl <seconds>]\n');
  process.exit(2);
}
const secrets = await loadLocalSecrets(localSettingsFromEnv().dataDir);
process.stdout.write(`${await secrets.issueToken({ tenantId: values.tenant, userId: values.user, ttlSeconds: Number(values.ttl), ...(values.email ? { email: values.email } : {}) })}\n`);
