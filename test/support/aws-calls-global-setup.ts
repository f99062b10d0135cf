/**
 * Global setup of `npm test`: a fresh directory for this run's AWS call recording. Every local
 * runtime the system tests start records there (`RECORD_AWS_CALLS`, set by vitest.config.ts), and
 * the least-privilege check, which runs after them (its project's `groupOrder`), reads it.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { ENV } from '../../src/env.js';

export default function setup(): void {
  const dir = process.env[ENV.RECORD_AWS_CALLS];
  if (!dir) return;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
}
