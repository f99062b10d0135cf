/**
 * A React front end built from the packed tarball, in Chromium at 1280 and 390 px (issue 30): the
 * package installed offline into a fresh app (it needs nothing else), a vite build of
 * test/browser/react-app, served from its own origin against the in-process local runtime. Checks:
 * the live badge, the feed with the type's action links, a keyboard-only walk (bell, feed, "Mark as
 * read" on one item, "Mark all read", Escape) with a visible focus at every stop, the offline
 * and reconnecting statuses (and the catch-up after), the expired-token error state and its recovery, and an axe-core scan with no serious or
 * critical violation in each state. Screenshots go to test-artifacts/ (UPDATE_DOCS_SCREENSHOTS=1 also writes docs/'s).
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { promisify } from 'node:util';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../src/local/embedded-dynamo.js';
import { startLocalRuntime, type LocalRuntime } from '../../src/local/runtime.js';
import { localSettingsFromEnv } from '../../src/local/settings.js';
import { publishNotification } from '../../src/producer/index.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const repoRoot = join(import.meta.dirname, '..', '..');
const ARTIFACTS = join(repoRoot, 'test-artifacts');
const WAIT = { timeout: 15_000 };
const run = promisify(execFile);
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

let workDir: string;
let runtime: LocalRuntime;
let site: Server;
let siteUrl: string;
let browser: Browser;
let events: EventBridgeClient;
const timings: Record<string, number> = {};

/** Packs the project, installs the tarball into a fresh app offline (an empty cache: it needs nothing), builds the app with vite. */
async function buildApp(): Promise<string> {
  const started = Date.now();
  const { stdout } = await run('npm', ['pack', '--silent', '--pack-destination', workDir], { cwd: repoRoot, maxBuffer: 16 * 1024 * 1024 });
  const tarball = join(workDir, stdout.trim().split('\n').pop()!);
  timings.packMs = Date.now() - started;
  const appDir = join(workDir, 'app');
  await cp(join(import.meta.dirname, 'react-app'), appDir, { recursive: true });
  await writeFile(join(appDir, 'package.json'), JSON.stringify({ name: 'acme-projects', private: true, type: 'module' }));
  await run('npm', ['install', tarball, '--offline', '--cache', join(workDir, 'empty-npm-cache'), '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: appDir });
  // React is the app's own dependency: linked from this repository (offline).
  for (const name of ['react', 'react-dom']) await symlink(join(repoRoot, 'node_modules', name), join(appDir, 'node_modules', name));
  const { build } = await import('vite');
  const built = Date.now();
  await build({ root: appDir, logLevel: 'warn', build: { outDir: join(appDir, 'dist') } });
  timings.viteBuildMs = Date.now() - built;
  return join(appDir, 'dist');
}

const CONTENT_TYPES: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css' };

function serve(dir: string): Promise<Server> {
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://site').pathname;
    const file = join(dir, path === '/' ? 'index.html' : path);
    readFile(file.startsWith(dir) ? file : join(dir, 'index.html'))
      .then((body) => response.writeHead(200, { 'content-type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream' }).end(body))
      .catch(() => response.writeHead(404).end());
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

async function openApp(user: string, width: number): Promise<Page> {
  const page = await browser.newPage({ viewport: { width, height: width < 500 ? 844 : 800 } });
  page.on('pageerror', (error) => console.error(`[page ${user}]`, error));
  const query = new URLSearchParams({ api: runtime.endpoints.http, ws: runtime.endpoints.ws, tenant: 'acme', user });
  await page.goto(`${siteUrl}/?${query}`);
  return page;
}

/** The app's notifications, as a producer sends them: a mention with a link and two buttons. */
async function publishMentions(user: string, count: number): Promise<void> {
  for (let index = 1; index <= count; index += 1) {
    await publishNotification(
      events,
      'mention.created',
      {
        id: `${user}-mention-${index}-${Date.now()}`,
        tenantId: 'acme',
        actor: { id: 'bob', name: `Bob ${index}` },
        recipients: [user],
        data: { postId: `p-${index}`, excerpt: `Can you review the launch plan, part ${index}?`, url: `https://projects.example.com/posts/p-${index}` },
      },
      { eventBusName: runtime.endpoints.eventBusName },
    );
  }
}

async function seriousViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: axeSource });
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document): Promise<{ violations: { id: string; impact: string | null; nodes: { target: string[] }[] }[] }> } }).axe;
    return (await axe.run(document)).violations.map((violation) => ({ id: violation.id, impact: violation.impact, targets: violation.nodes.map((node) => node.target.join(' ')) }));
  });
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical').map((violation) => `${violation.impact} ${violation.id}: ${violation.targets.join(', ')}`);
}

/** What has the focus: its role-ish description, and whether it shows a focus ring of at least 2 px. */
async function focused(page: Page): Promise<{ tag: string; text: string; className: string; ring: boolean }> {
  return page.evaluate(() => {
    const element = document.activeElement as HTMLElement;
    const style = getComputedStyle(element);
    const ring = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2;
    return { tag: element.tagName.toLowerCase(), text: (element.getAttribute('aria-label') ?? element.textContent ?? '').trim().slice(0, 60), className: element.className, ring };
  });
}

/** Presses Tab until `matches` (at most `limit` stops), checking a visible focus ring at every stop inside the inbox. */
async function tabTo(page: Page, matches: (stop: Awaited<ReturnType<typeof focused>>) => boolean, limit = 25): Promise<string[]> {
  const stops: string[] = [];
  for (let presses = 0; presses < limit; presses += 1) {
    await page.keyboard.press('Tab');
    const stop = await focused(page);
    stops.push(`${stop.tag}.${stop.className} "${stop.text}"`);
    if (/\bsn-/.test(stop.className)) expect(stop.ring, `visible focus on ${stops.at(-1)}`).toBe(true);
    if (matches(stop)) return stops;
  }
  throw new Error(`no such stop within ${limit} Tabs: ${stops.join(' | ')}`);
}

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`) });
  if (process.env.UPDATE_DOCS_SCREENSHOTS === '1') await page.screenshot({ path: join(repoRoot, 'docs', `${name}.png`) });
}

async function countsOf(user: string): Promise<{ unread: number; unseen: number }> {
  const token = await runtime.secrets.issueToken({ tenantId: 'acme', userId: user });
  const response = await fetch(`${runtime.endpoints.http}/notifications/counts`, { headers: { authorization: `Bearer ${token}` } });
  return (await response.json()) as { unread: number; unseen: number };
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y --no-install-recommends chromium`);
  const started = Date.now();
  await mkdir(ARTIFACTS, { recursive: true });
  workDir = await mkdtemp(join(tmpdir(), 'react-app-'));
  const dist = await buildApp();
  site = await serve(dist);
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  runtime = await startLocalRuntime({ ...localSettingsFromEnv({}), port: 0, wsPort: 0, dataDir: join(workDir, 'data'), infoBatchWindowMs: 300 });
  events = new EventBridgeClient({ endpoint: runtime.endpoints.events, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  timings.setupMs = Date.now() - started;
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await runtime?.close();
  await new Promise((resolve) => (site ? site.close(resolve) : resolve(undefined)));
  if (workDir) await rm(workDir, { recursive: true, force: true });
  console.info(`react-app timings: ${JSON.stringify(timings)}`);
});

describe.each([1280, 390])('the React app at %i px', (width) => {
  it('shows the live badge and the feed with action links, reads one item and then all by keyboard alone, with no serious axe violation', async () => {
    // Prepare
    const user = `reader-${width}`;
    const page = await openApp(user, width);
    const bell = page.locator('button.sn-bell');
    await expect.poll(() => bell.getAttribute('aria-label'), WAIT).toBe('Notifications');
    expect(await seriousViolations(page)).toEqual([]);

    // Act 1: three mentions arrive live.
    await publishMentions(user, 3);

    // Assess 1: the badge, announced in the bell's name.
    await expect.poll(() => bell.getAttribute('aria-label'), WAIT).toBe('Notifications, 3 new');
    expect(await page.locator('.sn-bell-badge').textContent()).toBe('3');
    expect(await bell.getAttribute('aria-expanded')).toBe('false');

    // Act 2: keyboard only: Tab to the bell, Enter opens the feed.
    await tabTo(page, (stop) => stop.className.includes('sn-bell'));
    await page.keyboard.press('Enter');

    // Assess 2: expanded, seen (the badge clears), the items with the type's link and buttons.
    await expect.poll(() => bell.getAttribute('aria-expanded'), WAIT).toBe('true');
    await expect.poll(() => bell.getAttribute('aria-label'), WAIT).toBe('Notifications');
    const items = page.locator('[role="feed"] article');
    await expect.poll(() => items.count(), WAIT).toBe(3);
    const first = items.first();
    expect(await first.locator('a.sn-item-link').getAttribute('href')).toBe('https://projects.example.com/posts/p-3');
    expect(await first.locator('a.sn-action').textContent()).toBe('Open');
    expect(await first.locator('button.sn-action').textContent()).toBe('Reply');
    expect(await first.locator('.sn-visually-hidden').first().textContent()).toBe('Unread: ');
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, `client-react-${width}`);

    // Act 3: on to the first item's "Mark as read" (through the item, its link and buttons), Enter.
    const walk = await tabTo(page, (stop) => stop.className.includes('sn-item-mark'));
    await page.keyboard.press('Enter');

    // Assess 3: that item is read here and on the server; the others are not.
    expect(walk.some((stop) => stop.startsWith('article.sn-item'))).toBe(true);
    expect(walk.some((stop) => stop.includes('sn-item-link'))).toBe(true);
    await expect.poll(() => first.getAttribute('data-read'), WAIT).toBe('true');
    expect(await items.nth(1).getAttribute('data-read')).toBe('false');
    await expect.poll(async () => (await countsOf(user)).unread, WAIT).toBe(2);

    // Act 4: back to "Mark all read" (Shift+Tab), Enter.
    for (let presses = 0; presses < 30 && !(await focused(page)).text.startsWith('Mark all read'); presses += 1) await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Enter');

    // Assess 4
    await expect.poll(() => page.locator('[role="feed"] article[data-read="false"]').count(), WAIT).toBe(0);
    await expect.poll(async () => (await countsOf(user)).unread, WAIT).toBe(0);

    // Act 5: Escape closes the panel and gives the focus back to the bell.
    await page.keyboard.press('Escape');

    // Assess 5
    expect(await bell.getAttribute('aria-expanded')).toBe('false');
    expect((await focused(page)).className).toContain('sn-bell');
    expect(await seriousViolations(page)).toEqual([]);

    // Act 6: the browser goes offline, then back.
    await page.keyboard.press('Enter');
    await page.context().setOffline(true);

    // Assess 6: the feed says so while it lasts.
    const status = page.locator('.sn-feed-status');
    await expect.poll(() => status.textContent(), WAIT).toBe('You are offline. New notifications will arrive when you are back online.');
    expect(await seriousViolations(page)).toEqual([]);
    await page.context().setOffline(false);
    await expect.poll(() => status.textContent(), WAIT).toBe('');
    await page.close();
  });

  it('says it is reconnecting while the socket is down, and catches up on what arrived meanwhile', async () => {
    // Prepare: the page's socket goes through a route the test can cut and refuse.
    const user = `reconnect-${width}`;
    const page = await browser.newPage({ viewport: { width, height: width < 500 ? 844 : 800 } });
    let refuse = false;
    const sockets: { close(options?: { code?: number; reason?: string }): Promise<void> }[] = [];
    await page.routeWebSocket(/token=/, (socket) => {
      if (refuse) return socket.close({ code: 4001, reason: 'test: network down' });
      socket.connectToServer();
      sockets.push(socket);
    });
    await page.goto(`${siteUrl}/?${new URLSearchParams({ api: runtime.endpoints.http, ws: runtime.endpoints.ws, tenant: 'acme', user })}`);
    const bell = page.locator('button.sn-bell');
    await publishMentions(user, 1);
    await expect.poll(() => bell.getAttribute('aria-label'), WAIT).toBe('Notifications, 1 new');
    await bell.click();
    const status = page.locator('.sn-feed-status');

    // Act: the socket drops and every reconnect is refused; a mention arrives meanwhile.
    refuse = true;
    await sockets.at(-1)!.close({ code: 4000, reason: 'test: dropped' });
    await expect.poll(() => status.textContent(), WAIT).toBe('Reconnecting… new notifications may be late.');
    expect(await seriousViolations(page)).toEqual([]);
    await publishMentions(user, 1);
    refuse = false;

    // Assess: back, the status line clears and the catch-up brings the mention the socket missed.
    await expect.poll(() => status.textContent(), { timeout: 45_000 }).toBe('');
    await expect.poll(() => page.locator('[role="feed"] article').count(), WAIT).toBe(2);
    await page.close();
  });

  it('says the session expired when the token is refused at load, and recovers with "Try again" once a fresh token can be had', async () => {
    // Prepare: the identity provider hands out an already expired token until the user "signs in again".
    const user = `expired-${width}`;
    await publishMentions(user, 2);
    const expired = await runtime.secrets.issueToken({ tenantId: 'acme', userId: user, expiresAt: Math.floor(Date.now() / 1000) - 60 });
    let signedIn = false;
    const context = await browser.newContext({ viewport: { width, height: width < 500 ? 844 : 800 } });
    await context.route('**/dev/token', async (route) => {
      if (signedIn) return route.continue();
      return route.fulfill({ status: 200, contentType: 'application/json', headers: { 'access-control-allow-origin': siteUrl }, body: JSON.stringify({ token: expired, expiresAt: new Date(Date.now() + 600_000).toISOString() }) });
    });
    const page = await context.newPage();
    page.on('pageerror', (error) => console.error(`[page ${user}]`, error));
    await page.goto(`${siteUrl}/?${new URLSearchParams({ api: runtime.endpoints.http, ws: runtime.endpoints.ws, tenant: 'acme', user })}`);

    // Act 1: open the bell.
    await page.locator('button.sn-bell').click();

    // Assess 1: an error, not an endless "loading": said in an alert, with a way out.
    const alert = page.locator('.sn-feed [role="alert"]');
    await expect.poll(() => alert.textContent(), WAIT).toContain('Your session has expired. Sign in again to see your notifications.');
    expect(await page.locator('.sn-feed').getAttribute('aria-busy')).toBe('false');
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, `client-react-expired-${width}`);

    // Act 2: the user signs in again; "Try again" by keyboard.
    signedIn = true;
    await alert.getByRole('button', { name: 'Try again' }).focus();
    await page.keyboard.press('Enter');

    // Assess 2: the feed, the badge follows.
    await expect.poll(() => page.locator('[role="feed"] article').count(), WAIT).toBe(2);
    await expect.poll(() => alert.count(), WAIT).toBe(0);
    await context.close();
  });
});
