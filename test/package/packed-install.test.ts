/**
 * The package as teams get it (issues 16 and 30): `npm pack`, then
 * - a front end: the tarball installed into a fresh app offline with an empty npm cache (it needs
 *   nothing else), its installed size reported and held under 5 MB, the client and React entries
 *   run from it (a server render of the bell) and a `.tsx` consumer type-checked against its
 *   declarations;
 * - a CDK app: the tarball plus exactly the packages docs/construct-library.md's install command
 *   names (linked from this repository, no registry), `NotificationInbox` with non-default props
 *   and a context key of its own (`logLevel: 'verbose'`), `cdk synth` with esbuild bundling from
 *   the built construct library;
 * - a `cdk init app --language typescript` app (CommonJS, as `cdk init` makes it) following the
 *   docs' recipe word for word: its install, its files, its own `invoice.paid` type, the typed
 *   producer registered with that catalog, `tsc` and `cdk synth` through cdk.json's own command.
 */
import { execFile } from 'node:child_process';
import { lstat, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const repoRoot = join(import.meta.dirname, '..', '..');
const PACKAGE = 'serverless-notifications';
const MB = 1024 * 1024;
const CLIENT_INSTALL_LIMIT = 5 * MB;
/** The tools a CDK app runs (its own devDependencies): linked, not part of any install command. */
const CDK_TOOLS = ['aws-cdk', 'typescript', 'tsx', '@types/node'];
const SYNTH_ENV = { ...process.env, CDK_DISABLE_VERSION_CHECK: '1', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };
let workDir: string;
let tarball: string;

/** The fenced blocks between `<!-- name ... -->` and `<!-- /name -->` of a docs page, with their language. */
async function docsRegion(page: string, name: string): Promise<{ language: string; code: string }[]> {
  const text = await readFile(join(repoRoot, 'docs', page), 'utf8');
  const region = new RegExp(`<!-- ${name}\\b[^>]*-->([\\s\\S]*?)<!-- /${name} -->`).exec(text)?.[1];
  if (!region) throw new Error(`docs/${page} has no <!-- ${name} --> region`);
  return [...region.matchAll(/^```(\w+)\n([\s\S]*?)^```/gm)].map((match) => ({ language: match[1]!, code: match[2]! }));
}

/** The package names of the `npm install` lines of a bash block (versions and flags dropped). */
function installedBy(bash: string): string[] {
  return bash
    .split('\n')
    .filter((line) => line.startsWith('npm install '))
    .flatMap((line) => line.replace(/#.*$/, '').trim().split(/\s+/).slice(2))
    .filter((word) => !word.startsWith('-'))
    .map((word) => word.replace(/(.)@.*$/, '$1'));
}

/** `npm install <tarball>` in `dir` with no network and an empty cache: it fails if the package needs anything. */
async function installTarball(dir: string): Promise<void> {
  await run('npm', ['install', tarball, '--offline', '--cache', join(dir, '.empty-npm-cache'), '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: dir });
  await rm(join(dir, '.empty-npm-cache'), { recursive: true, force: true });
}

/** The tarball unpacked into `dir`'s node_modules, for an app whose own package.json names packages a registry would fetch. */
async function unpackTarball(dir: string): Promise<void> {
  const installed = join(dir, 'node_modules', PACKAGE);
  await mkdir(installed, { recursive: true });
  await run('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1']);
}

/** Links packages (and their bins) from this repository's node_modules, in place of a registry install. */
async function linkPackages(dir: string, names: readonly string[]): Promise<void> {
  for (const name of names) {
    const target = join(dir, 'node_modules', name);
    await mkdir(dirname(target), { recursive: true });
    await symlink(join(repoRoot, 'node_modules', name), target);
  }
  await mkdir(join(dir, 'node_modules', '.bin'), { recursive: true });
  for (const bin of ['cdk', 'tsc', 'tsx', 'esbuild']) await symlink(join(repoRoot, 'node_modules', '.bin', bin), join(dir, 'node_modules', '.bin', bin)).catch(() => undefined);
}

/** Bytes under `path`, following no symbolic link (what an install wrote there). */
async function bytesIn(path: string): Promise<number> {
  const stat = await lstat(path);
  if (stat.isSymbolicLink()) return 0;
  if (!stat.isDirectory()) return stat.size;
  let total = 0;
  for (const entry of await readdir(path)) total += await bytesIn(join(path, entry));
  return total;
}

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'notifications-package-'));
  const { stdout } = await run('npm', ['pack', '--silent', '--pack-destination', workDir], { cwd: repoRoot, maxBuffer: 16 * MB });
  tarball = join(workDir, stdout.trim().split('\n').pop()!);
}, 240_000);

afterAll(async () => {
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('the packed package in a front end', () => {
  let appDir: string;

  beforeAll(async () => {
    appDir = join(workDir, 'front-end');
    await mkdir(appDir);
    await writeFile(join(appDir, 'package.json'), JSON.stringify({ name: 'front-end', private: true, type: 'module' }));
    await installTarball(appDir);
  });

  it('installs nothing but itself, in under 5 MB, and says how much (React adds its own)', async () => {
    // Act
    const installed = (await readdir(join(appDir, 'node_modules'))).filter((name) => !name.startsWith('.'));
    const bytes = await bytesIn(join(appDir, 'node_modules'));
    // What `npm install react react-dom` adds (measured on this repository's copies of the same versions).
    const reactBytes = (await Promise.all(['react', 'react-dom', 'scheduler'].map((name) => bytesIn(join(repoRoot, 'node_modules', name))))).reduce((sum, size) => sum + size, 0);
    const report = { clientInstallBytes: bytes, clientInstallMB: Number((bytes / MB).toFixed(2)), reactAndReactDomMB: Number((reactBytes / MB).toFixed(2)) };
    console.info(`installed size: ${JSON.stringify(report)}`);
    await mkdir(join(repoRoot, 'test-artifacts'), { recursive: true });
    await writeFile(join(repoRoot, 'test-artifacts', 'installed-size.json'), `${JSON.stringify(report, null, 2)}\n`);

    // Assess
    expect(installed).toEqual([PACKAGE]);
    expect(bytes).toBeLessThan(CLIENT_INSTALL_LIMIT);
    expect(await readdir(join(appDir, 'node_modules', PACKAGE))).not.toContain('package-lock.json');
    expect(await readdir(join(appDir, 'node_modules', PACKAGE, 'dist', 'src'))).not.toContain('local');
  });

  it('runs the built client and React entries', async () => {
    // Prepare: a REST-only client over a stub fetch, rendered on the server with the bell; React is the app's own.
    await linkPackages(appDir, ['react', 'react-dom']);
    await writeFile(
      join(appDir, 'run-client.mjs'),
      `import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { createInboxClient } from '${PACKAGE}/client';
import { InboxProvider, NotificationBell, useCounts } from '${PACKAGE}/client/react';

const answers = { '/v1/notifications': { items: [], nextCursor: null }, '/v1/notifications/counts': { unread: 99, unseen: 99, capped: true } };
const fetch = async (url) => {
  const body = answers[new URL(url).pathname];
  return { status: 200, ok: true, json: async () => body, text: async () => JSON.stringify(body) };
};
const client = createInboxClient({ httpUrl: 'https://api.example.com/v1', wsUrl: 'wss://ws.example.com', token: 't', fetch, live: false });
await client.start();
function Unread() {
  return createElement('b', null, String(useCounts().unread));
}
const html = renderToString(createElement(InboxProvider, { client }, createElement(NotificationBell), createElement(Unread)));
process.stdout.write(JSON.stringify({ html, resolved: ['client', 'client/react', 'client/styles.css'].map((entry) => import.meta.resolve('${PACKAGE}/' + entry)) }));
`,
    );

    // Act
    const { stdout } = await run(process.execPath, ['run-client.mjs'], { cwd: appDir });
    const result = JSON.parse(stdout) as { html: string; resolved: string[] };

    // Assess
    expect(result.html).toContain('aria-label="Notifications, 99+ new"');
    expect(result.html).toContain('<b>99</b>');
    expect(result.resolved.map((url) => url.slice(url.indexOf(`/${PACKAGE}/`) + PACKAGE.length + 2))).toEqual(['dist/src/client/index.js', 'dist/src/client/react.js', 'src/client/styles.css']);
  });

  it('type-checks a consumer of the client and React entries against the built declarations', async () => {
    // Prepare
    await linkPackages(appDir, ['typescript', '@types/react']);
    await writeFile(
      join(appDir, 'consumer.ts'),
      `import { createInboxClient } from '${PACKAGE}/client';
export const client: ReturnType<typeof createInboxClient> = createInboxClient({ httpUrl: 'https://api.example.com/v1', wsUrl: 'wss://ws.example.com/live', token: async () => 'token' });
`,
    );
    await writeFile(
      join(appDir, 'inbox-widget.tsx'),
      `import type { Notification, PreferencesInput } from '${PACKAGE}/client';
import { InboxProvider, NotificationBell, NotificationCenter, NotificationFeed, useCounts, useInbox, usePreferences } from '${PACKAGE}/client/react';
import { client } from './consumer.js';

function Header() {
  const { unread, capped } = useCounts();
  const inbox = useInbox();
  const preferences = usePreferences();
  const first: Notification | undefined = inbox.notifications[0];
  const muteAll = (types: string[]) => preferences.preferences && preferences.save({ ...preferences.preferences, mutedTypes: types } satisfies PreferencesInput);
  // @ts-expect-error markRead takes a notification id (a string): the declarations are real types, not any.
  void inbox.markRead(42);
  const failure: 'unauthorized' | 'network' | 'server' | undefined = inbox.error?.kind;
  return <h1 onClick={() => muteAll([])}>{capped ? unread + '+' : unread} {first?.title} {failure} <button onClick={() => inbox.retry()}>retry</button> <NotificationBell onOpen={() => inbox.markAllRead()} /></h1>;
}

export function App() {
  return (
    <InboxProvider client={client} locale="de" labels={{ markAllRead: 'Alle gelesen' }}>
      <Header />
      <NotificationCenter className="mine" onAction={(actionId, item) => console.log(actionId, item.id)} />
      <NotificationFeed renderItem={(item) => <em>{item.title}</em>} />
    </InboxProvider>
  );
}
`,
    );
    await writeFile(
      join(appDir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', jsx: 'react-jsx', strict: true, noEmit: true, skipLibCheck: true, lib: ['ES2023', 'DOM'], types: [] }, files: ['consumer.ts', 'inbox-widget.tsx'] }),
    );
    const tsc = join(repoRoot, 'node_modules', '.bin', 'tsc');

    // Act: tsc exits non-zero on any error.
    const { stdout } = await run(tsc, ['-p', 'tsconfig.json', '--listFilesOnly'], { cwd: appDir });
    await run(tsc, ['-p', 'tsconfig.json'], { cwd: appDir });

    // Assess: the package's types come from dist's declarations, not its .ts sources.
    const packageFiles = stdout.split('\n').filter((file) => file.includes(`/node_modules/${PACKAGE}/`));
    expect(packageFiles.some((file) => file.endsWith('/dist/src/client/react.d.ts'))).toBe(true);
    expect(packageFiles.filter((file) => !file.endsWith('.d.ts'))).toEqual([]);
  });
});

describe('the packed package in a CDK app, installed with the documented command', () => {
  it('synthesizes NotificationInbox with bundled functions from exactly the packages the docs name', async () => {
    // Prepare
    const appDir = join(workDir, 'host-app');
    await mkdir(appDir);
    const [install] = await docsRegion('construct-library.md', 'install:cdk');
    const documented = installedBy(install!.code).filter((name) => name !== PACKAGE);
    await writeFile(join(appDir, 'package.json'), JSON.stringify({ name: 'host-app', private: true, type: 'module' }));
    await installTarball(appDir);
    await linkPackages(appDir, [...documented, ...CDK_TOOLS]);
    await writeFile(join(appDir, 'package-lock.json'), JSON.stringify({ name: 'host-app', lockfileVersion: 3, requires: true, packages: {} }));
    await writeFile(join(appDir, 'cdk.json'), JSON.stringify({ app: 'npx tsx app.ts', context: { logLevel: 'verbose' } }));
    await writeFile(
      join(appDir, 'app.ts'),
      `import { App, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { EventBus } from 'aws-cdk-lib/aws-events';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { NotificationInbox } from '${PACKAGE}/cdk';

const app = new App();
const stack = new Stack(app, 'HostStack');
const inbox = new NotificationInbox(stack, 'Notifications', {
  auth: { mode: 'jwt', issuer: 'https://id.example.com/', audience: 'host-app', jwksUrl: 'https://id.example.com/.well-known/jwks.json', tenantClaim: 'org.id' },
  eventBus: new EventBus(stack, 'HostBus'),
  settings: { feedShards: 8, infoBatchWindowSeconds: 10, logLevel: 'DEBUG' },
  removalPolicy: RemovalPolicy.DESTROY,
  alarmTopic: new Topic(stack, 'HostAlarms'),
});
if (!inbox.api.url) throw new Error('no REST API');
app.synth();
`,
    );

    // Act
    await run(join(appDir, 'node_modules', '.bin', 'cdk'), ['synth', '--quiet', '--output', 'cdk.out'], { cwd: appDir, env: SYNTH_ENV, maxBuffer: 64 * MB });
    const template = JSON.parse(await readFile(join(appDir, 'cdk.out', 'HostStack.template.json'), 'utf8')) as { Resources: Record<string, { Type: string }> };
    const assets = (await readdir(join(appDir, 'cdk.out'))).filter((name) => name.startsWith('asset.'));

    // Assess
    expect(documented).toEqual(expect.arrayContaining(['aws-cdk-lib', 'constructs', 'zod', 'esbuild']));
    const functions = Object.values(template.Resources).filter((resource) => resource.Type === 'AWS::Lambda::Function');
    expect(functions.length).toBeGreaterThan(5);
    expect(assets.length).toBeGreaterThan(0);
    // The host's bus is used: no bus of our own.
    expect(Object.values(template.Resources).filter((resource) => resource.Type === 'AWS::Events::EventBus')).toHaveLength(1);
  });
});

describe('the recipe in a new `cdk init` app', () => {
  it("follows docs/construct-library.md word for word: its own type, typed producer, tsc and synth, the built-ins it leaves out out of every bundle", async () => {
    // Prepare: `cdk init` as a team runs it (--generate-only: no npm install, no git, offline).
    const appDir = join(workDir, 'my-app');
    await mkdir(appDir);
    await run(join(repoRoot, 'node_modules', '.bin', 'cdk'), ['init', 'app', '--language', 'typescript', '--generate-only'], { cwd: appDir, env: SYNTH_ENV });
    const blocks = await docsRegion('construct-library.md', 'recipe:cdk-init');
    const install = blocks.filter((block) => block.language === 'bash').flatMap((block) => installedBy(block.code));
    const files = blocks.filter((block) => block.language === 'ts').map((block) => ({ path: /^\/\/ (\S+?\.ts)\b/.exec(block.code)![1]!, code: block.code }));
    const generated = JSON.parse(await readFile(join(appDir, 'package.json'), 'utf8')) as { type?: string; dependencies: Record<string, string> };
    // The recipe's install, in place of the registry: the tarball, then its other packages and the app's own dependencies linked.
    await unpackTarball(appDir);
    await linkPackages(appDir, [...install.filter((name) => name !== PACKAGE), ...Object.keys(generated.dependencies), ...CDK_TOOLS]);
    for (const file of files) {
      await mkdir(dirname(join(appDir, file.path)), { recursive: true });
      await writeFile(join(appDir, file.path), file.code);
    }
    // Not the recipe but this machine: the template's jest (its test folder and types) is not installed offline.
    await rm(join(appDir, 'test'), { recursive: true, force: true });
    const tsconfig = JSON.parse(await readFile(join(appDir, 'tsconfig.json'), 'utf8')) as { compilerOptions: { types?: string[] } };
    tsconfig.compilerOptions.types = tsconfig.compilerOptions.types?.filter((name) => name !== 'jest');
    await writeFile(join(appDir, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
    await writeFile(join(appDir, 'package-lock.json'), JSON.stringify({ name: 'my-app', lockfileVersion: 3, requires: true, packages: {} }));

    // Act: cdk.json's own app command (`npx tsc && npx tsx bin/my-app.ts`), after a tsc that shows its errors if any.
    await run(join(appDir, 'node_modules', '.bin', 'tsc'), [], { cwd: appDir }).catch((error: { stdout: string }) => {
      throw new Error(`tsc in the cdk init app:\n${error.stdout}`);
    });
    await run(join(appDir, 'node_modules', '.bin', 'cdk'), ['synth', '--quiet'], { cwd: appDir, env: SYNTH_ENV, maxBuffer: 64 * MB });
    const template = JSON.parse(await readFile(join(appDir, 'cdk.out', 'MyAppStack.template.json'), 'utf8')) as {
      Resources: Record<string, { Type: string; Properties?: { Code?: { S3Key?: string }; Environment?: { Variables?: Record<string, string> } } }>;
    };
    const functions = Object.values(template.Resources).filter((resource) => resource.Type === 'AWS::Lambda::Function');
    const bundleOf = (resource: (typeof functions)[number]) => readFile(join(appDir, 'cdk.out', `asset.${resource.Properties!.Code!.S3Key!.replace(/\.zip$/, '')}`, 'index.mjs'), 'utf8');
    const fanOut = functions.find((resource) => resource.Properties?.Environment?.Variables?.NOTIFICATION_TYPE === 'invoice.paid');
    const bundles = await Promise.all(functions.map(bundleOf));
    // The typed producer: wrong data for the registered type fails to compile.
    await writeFile(join(appDir, 'producer', 'wrong.ts'), `import { publishNotification } from '${PACKAGE}/producer';\nimport { EventBridgeClient } from '@aws-sdk/client-eventbridge';\nvoid publishNotification(new EventBridgeClient({}), 'invoice.paid', { id: 'x', tenantId: 'acme', actor: { id: 'a' }, data: { invoiceId: 'INV-1' } });\n`);
    const wrong = await run(join(appDir, 'node_modules', '.bin', 'tsc'), [], { cwd: appDir }).then(
      () => '',
      (error: { stdout: string }) => error.stdout,
    );

    // Assess
    expect(generated.type).toBeUndefined(); // a CommonJS app, as cdk init makes it
    expect(install).toEqual(expect.arrayContaining([PACKAGE, 'zod', 'esbuild', '@aws-sdk/client-eventbridge']));
    expect(files.map((file) => file.path)).toEqual(['notifications/invoice-paid.ts', 'notifications/index.ts', 'lib/my-app-stack.ts', 'producer/publish-invoice.ts']);
    expect(fanOut).toBeDefined();
    expect(await bundleOf(fanOut!)).toContain('received');
    // The render texts of the built-in types the catalog leaves out (their names also appear in messages).
    for (const builtIn of ['mentioned you', 'commented on your post', 'published a post']) expect(bundles.filter((bundle) => bundle.includes(builtIn)).length, builtIn).toBe(0);
    expect(bundles.filter((bundle) => bundle.includes('followed you')).length).toBeGreaterThan(0);
    expect(wrong).toMatch(/producer\/wrong\.ts.*error TS2\d{3}/);
    expect(wrong).toContain('amountCents');
  });
});
