/**
 * The package as a team gets it (issue 16): `npm pack`, the tarball unpacked into a fresh CDK app's
 * node_modules, an app that adds `NotificationInbox` to its own stack with non-default props and a
 * context key of its own (`logLevel: 'verbose'`), then `cdk synth` with esbuild bundling from the
 * built construct library (dist/, built by `prepack`); the `client` and `client/react` entries
 * imported and run from the tarball; and a small browser consumer (a .tsx with the hooks and the bell)
 * type-checked against the installed declarations.
 * Offline: the other dependencies are this repository's installed ones, linked in (no registry).
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const repoRoot = join(import.meta.dirname, '..', '..');
const PACKAGE = 'serverless-notifications';
let appDir: string;

beforeAll(async () => {
  appDir = await mkdtemp(join(tmpdir(), 'notifications-host-app-'));
  const { stdout } = await run('npm', ['pack', '--silent', '--pack-destination', appDir], { cwd: repoRoot });
  const tarball = join(appDir, stdout.trim().split('\n').pop()!);
  const installed = join(appDir, 'node_modules', PACKAGE);
  await mkdir(installed, { recursive: true });
  await run('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1']);
  for (const name of await readdir(join(repoRoot, 'node_modules'))) {
    if (name === PACKAGE || name === '.bin' || name.startsWith('.')) continue;
    await symlink(join(repoRoot, 'node_modules', name), join(appDir, 'node_modules', name));
  }
  await symlink(join(repoRoot, 'node_modules', '.bin'), join(appDir, 'node_modules', '.bin'));
  await writeFile(join(appDir, 'package.json'), JSON.stringify({ name: 'host-app', private: true, type: 'module', dependencies: { [PACKAGE]: '*' } }));
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
}, 120_000);

afterAll(async () => {
  if (appDir) await rm(appDir, { recursive: true, force: true });
});

describe('the packed package in a fresh CDK app', () => {
  it('leaves out the lock file and the local runtime, and synthesizes NotificationInbox with bundled functions', async () => {
    // Act
    await run(join(appDir, 'node_modules', '.bin', 'cdk'), ['synth', '--quiet', '--output', 'cdk.out'], { cwd: appDir, env: { ...process.env, CDK_DISABLE_VERSION_CHECK: '1' }, maxBuffer: 64 * 1024 * 1024 });
    const template = JSON.parse(await readFile(join(appDir, 'cdk.out', 'HostStack.template.json'), 'utf8')) as { Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }> };
    const installed = await readdir(join(appDir, 'node_modules', PACKAGE));
    const assets = (await readdir(join(appDir, 'cdk.out'))).filter((name) => name.startsWith('asset.'));

    // Assess
    expect(installed).not.toContain('package-lock.json');
    expect(installed).toContain('dist');
    expect(await readdir(join(appDir, 'node_modules', PACKAGE, 'src'))).not.toContain('local');
    expect(await readdir(join(appDir, 'node_modules', PACKAGE, 'dist', 'src'))).not.toContain('local');
    const functions = Object.values(template.Resources).filter((resource) => resource.Type === 'AWS::Lambda::Function');
    expect(functions.length).toBeGreaterThan(5);
    expect(assets.length).toBeGreaterThan(0);
    // The host's bus is used: no bus of our own.
    expect(Object.values(template.Resources).filter((resource) => resource.Type === 'AWS::Events::EventBus')).toHaveLength(1);
  });

  it('runs the built client and React entries from the tarball', async () => {
    // Prepare: a REST-only client over a stub fetch, rendered on the server with the bell.
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
process.stdout.write(JSON.stringify({ html, resolved: ['client', 'client/react', 'cdk'].map((entry) => import.meta.resolve('${PACKAGE}/' + entry)) }));
`,
    );

    // Act
    const { stdout } = await run(process.execPath, ['run-client.mjs'], { cwd: appDir });
    const result = JSON.parse(stdout) as { html: string; resolved: string[] };

    // Assess
    expect(result.html).toContain('aria-label="Notifications, 99+ new"');
    expect(result.html).toContain('<b>99</b>');
    expect(result.resolved.map((url) => url.slice(url.indexOf(`/${PACKAGE}/`) + PACKAGE.length + 2))).toEqual(['dist/src/client/index.js', 'dist/src/client/react.js', 'dist/lib/index.js']);
  });

  it('bundles a notification type the host app defines in its own file into that type\'s fan-out function', async () => {
    // Prepare: the host's own type, written against the package's light catalog entry, plus two of the package's.
    const marker = 'host-owned-type-marker: invoice paid';
    await mkdir(join(appDir, 'notifications'), { recursive: true });
    await writeFile(
      join(appDir, 'notifications', 'invoice-paid.ts'),
      `import * as z from 'zod';
import { defineNotificationType, displayName } from '${PACKAGE}/catalog';

export const invoicePaid = defineNotificationType({
  detailType: 'invoice.paid',
  dataSchema: z.object({ invoiceId: z.string().min(1).max(64), amountCents: z.number().int().nonnegative() }).strict(),
  defaultPriority: 'urgent',
  audience: 'recipients',
  digestible: false,
  render: ({ actor, data }) => ({ title: \`\${displayName(actor)} paid invoice \${data.invoiceId}\`, body: '${marker}' }),
});
`,
    );
    await writeFile(
      join(appDir, 'notifications', 'index.ts'),
      `import { followCreated, followDeleted } from '${PACKAGE}/catalog/built-in';
import { invoicePaid } from './invoice-paid.js';

export const catalog = [invoicePaid, followCreated, followDeleted];
`,
    );
    await writeFile(
      join(appDir, 'team-app.ts'),
      `import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { NotificationInbox } from '${PACKAGE}/cdk';
import { catalog } from './notifications/index.js';

const app = new App();
const stack = new Stack(app, 'TeamStack');
new NotificationInbox(stack, 'Notifications', {
  catalog,
  catalogEntry: join(import.meta.dirname, 'notifications', 'index.ts'),
  settings: { liveDelivery: false },
});
app.synth();
`,
    );
    await writeFile(join(appDir, 'tsconfig.team.json'), JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: true, types: ['node'] }, files: ['notifications/index.ts'] }));

    // Act
    await run(join(appDir, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.team.json'], { cwd: appDir });
    await run(join(appDir, 'node_modules', '.bin', 'cdk'), ['synth', '--quiet', '--app', 'npx tsx team-app.ts', '--output', 'cdk.out.team'], { cwd: appDir, env: { ...process.env, CDK_DISABLE_VERSION_CHECK: '1' }, maxBuffer: 64 * 1024 * 1024 });
    const template = JSON.parse(await readFile(join(appDir, 'cdk.out.team', 'TeamStack.template.json'), 'utf8')) as { Resources: Record<string, { Type: string; Properties?: { Code?: { S3Key?: string }; Environment?: { Variables?: Record<string, string> } } }> };
    const functions = Object.values(template.Resources).filter((resource) => resource.Type === 'AWS::Lambda::Function');
    const assetOf = async (resource: (typeof functions)[number]) => readFile(join(appDir, 'cdk.out.team', `asset.${resource.Properties!.Code!.S3Key!.replace(/\.zip$/, '')}`, 'index.mjs'), 'utf8');
    const fanOut = functions.find((resource) => resource.Properties?.Environment?.Variables?.NOTIFICATION_TYPE === 'invoice.paid');

    // Assess: the host's code is in its fan-out (that the package's list is left out is test/infra/custom-catalog.test.ts).
    expect(fanOut).toBeDefined();
    expect(await assetOf(fanOut!)).toContain(marker);
  });

  it('type-checks a consumer of the client and React entries against the built declarations', async () => {
    // Prepare
    await writeFile(
      join(appDir, 'consumer.ts'),
      `import { createInboxClient } from '${PACKAGE}/client';
export const client: ReturnType<typeof createInboxClient> = createInboxClient({ httpUrl: 'https://api.example.com/v1', wsUrl: 'wss://ws.example.com/live', token: async () => 'token' });
`,
    );
    await writeFile(
      join(appDir, 'inbox-widget.tsx'),
      `import type { Notification, PreferencesInput } from '${PACKAGE}/client';
import { InboxProvider, NotificationBell, NotificationFeed, useCounts, useInbox, usePreferences } from '${PACKAGE}/client/react';
import { client } from './consumer.js';

function Header() {
  const { unread, capped } = useCounts();
  const inbox = useInbox();
  const preferences = usePreferences();
  const first: Notification | undefined = inbox.notifications[0];
  const muteAll = (types: string[]) => preferences.preferences && preferences.save({ ...preferences.preferences, mutedTypes: types } satisfies PreferencesInput);
  // @ts-expect-error markRead takes a notification id (a string): the declarations are real types, not any.
  void inbox.markRead(42);
  return <h1 onClick={() => muteAll([])}>{capped ? unread + '+' : unread} {first?.title} <NotificationBell onOpen={() => inbox.markAllRead()} /></h1>;
}

export function App() {
  return (
    <InboxProvider client={client}>
      <Header />
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

    // Act: tsc exits non-zero on any error.
    const { stdout } = await run(join(appDir, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.json', '--listFilesOnly'], { cwd: appDir });
    await run(join(appDir, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.json'], { cwd: appDir });

    // Assess: the package's types come from dist's declarations, not its .ts sources.
    const packageFiles = stdout.split('\n').filter((file) => file.includes(`/node_modules/${PACKAGE}/`));
    expect(packageFiles.some((file) => file.endsWith('/dist/src/client/react.d.ts'))).toBe(true);
    expect(packageFiles.filter((file) => !file.endsWith('.d.ts'))).toEqual([]);
  });
});
