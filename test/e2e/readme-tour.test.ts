/**
 * The README's 5-minute tour works as written: its publish block (a `node` script using the real
 * `ws` and `@aws-sdk/client-eventbridge` packages) runs against the local runtime, receives the push
 * on its socket, and the notification is then in the inbox over REST.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalRuntime, type LocalRuntime } from '../../src/local/runtime.js';
import { localSettingsFromEnv } from '../../src/local/settings.js';
import { call, type CountsBody, type PageBody } from '../support/http.js';

const repoRoot = join(import.meta.dirname, '..', '..');
const README_HTTP = 'http://127.0.0.1:3000';
const README_WS = 'ws://127.0.0.1:3001';

let runtime: LocalRuntime;
let dataDir: string;

/** The script of the README's `<!-- tour:publish -->` block: the body of its `node --input-type=module <<'TOUR'` heredoc. */
async function tourScript(): Promise<string> {
  const readme = await readFile(join(repoRoot, 'README.md'), 'utf8');
  const block = readme.match(/<!-- tour:publish[^>]*-->\n```bash\n([\s\S]*?)```\n<!-- \/tour:publish -->/)?.[1];
  const script = block?.match(/^node --input-type=module <<'TOUR'\n([\s\S]*?)\nTOUR\n$/)?.[1];
  if (!script) throw new Error('README.md has no <!-- tour:publish --> block holding a node <<\'TOUR\' heredoc');
  return script;
}

function runNode(script: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module'], { cwd: repoRoot, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 25_000);
    child.stdout.on('data', (chunk: Buffer) => void (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(script);
  });
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'notifications-readme-tour-'));
  runtime = await startLocalRuntime({ ...localSettingsFromEnv({}), port: 0, wsPort: 0, dataDir });
});

afterAll(async () => {
  await runtime?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('README 5-minute tour', () => {
  it('publishes with PutEvents, prints the live push, and the notification is in the inbox', async () => {
    // Prepare: the README's script, pointed at this runtime's ports; a token as `npm run token` issues it.
    const script = await tourScript();
    expect(script).toContain(README_HTTP);
    expect(script).toContain(README_WS);
    const local = script.replaceAll(README_HTTP, runtime.endpoints.events).replaceAll(README_WS, runtime.endpoints.ws);
    const token = await runtime.secrets.issueToken({ tenantId: 'acme', userId: 'alice' });

    // Act
    const run = await runNode(local, { ...process.env, TOKEN: token, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' });
    const page = await call(runtime.endpoints.http, 'GET', '/notifications', { token });
    const counts = await call(runtime.endpoints.http, 'GET', '/notifications/counts', { token });

    // Assess
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('failed entries: 0');
    const live = JSON.parse(run.stdout.match(/^live: (.*)$/m)?.[1] ?? 'null') as { type: string; notification: { id: string; title: string } } | null;
    expect(live?.type).toBe('notification');
    expect(live?.notification.title).toBe('Bob mentioned you');
    expect((page.body as PageBody).items.map((item) => item.id)).toContain(live?.notification.id);
    expect(counts.body as CountsBody).toEqual({ unread: 1, unseen: 1, capped: false, newestId: live?.notification.id });
  });
});
