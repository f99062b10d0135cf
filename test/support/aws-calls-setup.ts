/**
 * Setup file of the system tests: names the runtimes a test file starts in the AWS call recording
 * (`RECORD_AWS_CALLS_LABEL`), so the least-privilege check knows which files recorded.
 */
import { relative } from 'node:path';
import { expect } from 'vitest';
import { ENV } from '../../src/env.js';

const testPath = expect.getState().testPath;
if (testPath) process.env[ENV.RECORD_AWS_CALLS_LABEL] = relative(process.cwd(), testPath);
