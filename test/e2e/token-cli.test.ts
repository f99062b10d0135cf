/**
 * `npm run token` (issue 30): `--help` prints the usage; with no DATA_DIR it signs with the key of
 * the runtime running from the directory (`.local/running.json`) and refuses, saying what to do,
 * when none runs; a DATA_DIR no runtime started on is refused instead of getting a new key.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { decodeJwt, jwtVerify, createLocalJWKSet } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadLocalSecrets } from '../../src/local/signing-key.js';

const repoRoot = join(import.meta.dirname, '..', '..');
const run = promisify(execFile);
const TSX = join(repoRoot, 'node_modules', 'tsx', 'dist', 'loader.mjs');
const CLI = join(repoRoot, 'src', 'local', 'token-cli.ts');
let workDir: string;

/** The CLI as `npm run token` runs it, from `cwd`; resolves with its exit code and output. */
async function token(cwd: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const { DATA_DIR: _ignored, ...inherited } = process.env;
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', TSX, CLI, ...args], { cwd, env: { ...inherited, ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'token-cli-'));
});

afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

describe('npm run token', () => {
  it('prints its usage on --help, and the usage with the reason on a wrong option', async () => {
    const help = await token(workDir, ['--help']);
    const wrong = await token(workDir, ['--tenant', 'acme', '--bogus']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^usage: npm run --silent token -- --tenant <tenant> --user <user>/);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("Unknown option '--bogus'");
    expect(wrong.stderr).toContain('usage:');
    expect(wrong.stderr).not.toMatch(/\n\s+at /);
  });

  it('refuses when no runtime runs from the directory and no DATA_DIR is given, and creates no key for a DATA_DIR no runtime used', async () => {
    const emptyDataDir = join(workDir, 'never-started');
    const none = await token(workDir, ['--tenant', 'acme', '--user', 'alice']);
    const unused = await token(workDir, ['--tenant', 'acme', '--user', 'alice'], { DATA_DIR: emptyDataDir });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('no local runtime is running from this directory');
    expect(none.stdout).toBe('');
    expect(unused.code).toBe(1);
    expect(unused.stderr).toContain('has no local signing key');
    expect(existsSync(join(emptyDataDir, 'local-secrets.json'))).toBe(false);
  });

  it("signs with the running runtime's key (.local/running.json), which that runtime's verifier accepts", async () => {
    // Prepare: a data dir with its key, named by a running.json whose pid is alive (this process).
    const dataDir = join(workDir, 'data');
    const secrets = await loadLocalSecrets(dataDir);
    await mkdir(join(workDir, '.local'), { recursive: true });
    await writeFile(join(workDir, '.local', 'running.json'), JSON.stringify({ pid: process.pid, dataDir, http: 'http://127.0.0.1:1', ws: 'ws://127.0.0.1:2' }));

    // Act
    const signed = await token(workDir, ['--tenant', 'acme', '--user', 'alice', '--ttl', '60']);

    // Assess
    expect(signed.code, signed.stderr).toBe(0);
    const jwt = signed.stdout.trim();
    await expect(jwtVerify(jwt, createLocalJWKSet(secrets.jwks))).resolves.toBeDefined();
    expect(decodeJwt(jwt)).toMatchObject({ sub: 'alice' });
  });
});
