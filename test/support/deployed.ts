/**
 * Whether this run's local runtimes load the deployed esbuild bundles (`npm run test:deployed` sets
 * LOCAL_FUNCTIONS): a test of the sources' own internals (request counts of the runtime's own
 * clients) does not apply to the bundles, which build their own.
 */
import { ENV } from '../../src/env.js';

export const DEPLOYED_BUNDLES = Boolean(process.env[ENV.LOCAL_FUNCTIONS]);
