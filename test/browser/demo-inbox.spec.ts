/**
 * The demo inbox page as a person uses it, in headless Chromium against the in-process local
 * runtime: publish, see the toast and the badge, open the bell, mark all read, reload and find the
 * state kept; a second page of the same user follows. Screenshots go to `test-artifacts/`.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../src/local/embedded-dynamo.js';
import { startLocalRuntime, type LocalRuntime } from '../../src/local/runtime.js';
import { localSettingsFromEnv } from '../../src/local/settings.js';
import { aComment, aMention, putAllEntries, putEntry } from '../support/events.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = 'test-artifacts';
const WAIT = { timeout: 15_000 };

let runtime: LocalRuntime;
let dataDir: string;
let profileDir: string;
let context: BrowserContext;

async function openInbox(tenant: string, user: string): Promise<Page> {
  const page = await context.newPage();
  page.on('pageerror', (error) => console.error(`[page ${user}]`, error));
  await page.goto(`${runtime.endpoints.http}/?tenant=${tenant}&user=${user}`);
  await page.locator('#connection[data-state="open"]').waitFor(WAIT);
  return page;
}

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`) });
}

/** Every notification in the user's inbox view, paged through REST. */
async function countInbox(token: string): Promise<number> {
  let count = 0;
  let cursor: string | null = null;
  do {
    const query: string = cursor === null ? 'limit=100' : `limit=100&cursor=${encodeURIComponent(cursor)}`;
    const response = await fetch(`${runtime.endpoints.http}/notifications?${query}`, { headers: { authorization: `Bearer ${token}` } });
    const page = (await response.json()) as { items: unknown[]; nextCursor: string | null };
    count += page.items.length;
    cursor = page.nextCursor;
  } while (cursor !== null);
  return count;
}

const badge = (page: Page) => page.locator('#badge');
const bell = (page: Page) => page.getByRole('button', { name: /^Notifications/ });

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y --no-install-recommends chromium`);
  await mkdir(ARTIFACTS, { recursive: true });
  dataDir = await mkdtemp(join(tmpdir(), 'browser-e2e-'));
  profileDir = await mkdtemp(join(tmpdir(), 'browser-profile-'));
  // A short preferences cache: the page reads the inbox (and so the user's preferences) before "Text this user" switches texts on.
  runtime = await startLocalRuntime({ ...localSettingsFromEnv({}), port: 0, wsPort: 0, dataDir, infoBatchWindowMs: 300, preferencesCacheTtlMs: 250 });
  context = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
});

afterAll(async () => {
  await context?.close();
  await runtime?.close();
  for (const dir of [dataDir, profileDir]) if (dir) await rm(dir, { recursive: true, force: true });
});

describe('The demo inbox page', () => {
  it('publish, toast and badge, bell, mark all read, reload; a second page follows', async () => {
    // Prepare
    const page = await openInbox('acme', 'alice');
    const other = await openInbox('acme', 'alice');
    await expect.poll(() => page.locator('.type-card h3').allTextContents()).toEqual(expect.arrayContaining(['mention.created', 'comment.created', 'post.published']));
    await expect.poll(() => badge(page).isHidden()).toBe(true);

    // Act: publish a mention from the panel
    await page.getByRole('button', { name: 'Publish mention.created' }).click();

    // Assess: toast and badge, here and on the second page
    await page.locator('.toast', { hasText: 'Bob mentioned you' }).waitFor(WAIT);
    await expect.poll(() => badge(page).textContent()).toBe('1');
    await expect.poll(() => badge(other).textContent()).toBe('1');

    // Act: three comments in a row collapse into one digest toast
    await page.getByRole('button', { name: 'Publish 3 comment.created events' }).click();
    await page.locator('.toast', { hasText: '3 new comments' }).waitFor(WAIT);
    await expect.poll(() => badge(page).textContent()).toBe('4');
    await expect.poll(() => badge(other).textContent()).toBe('4');
    await shot(page, '01-toasts-and-badge');

    // Act: open the bell (seen-all): the badge clears, nothing is read yet
    await bell(page).click();
    await expect.poll(() => page.locator('#list .item').count()).toBe(4);
    await expect.poll(() => badge(page).isHidden()).toBe(true);
    await expect.poll(() => badge(other).isHidden()).toBe(true);
    expect(await page.locator('#list .item.unread').count()).toBe(4);
    await expect.poll(() => page.locator('#unread-summary').textContent()).toBe('4 unread');
    await shot(page, '02-bell-open-unread');

    // Act: mark all read
    await page.getByRole('button', { name: 'Mark all as read' }).click();
    await expect.poll(() => page.locator('#list .item.unread').count()).toBe(0);
    expect(await page.locator('#list .item.read').count()).toBe(4);
    await shot(page, '03-all-read');

    // Act: reload: the state is the server's
    await page.reload();
    await page.locator('#connection[data-state="open"]').waitFor(WAIT);
    await bell(page).click();
    await expect.poll(() => page.locator('#list .item.read').count()).toBe(4);
    expect(await page.locator('#list .item.unread').count()).toBe(0);
    await expect.poll(() => badge(page).isHidden()).toBe(true);
    await expect.poll(() => page.locator('#unread-summary').textContent()).toBe('all read');

    // The second page followed too: its list is all read when it opens the bell
    await bell(other).click();
    await expect.poll(() => other.locator('#list .item.read').count()).toBe(4);

    // One more mention: only the new one is unread, on both pages
    await page.getByRole('button', { name: 'Publish mention.created' }).click();
    await expect.poll(() => other.locator('#list .item.unread').count()).toBe(1);
    await bell(page).click();
    await expect.poll(() => page.locator('#list .item.unread').count()).toBe(1);
    await page.locator('#list .item.unread .item-button').click();
    await expect.poll(() => other.locator('#list .item.unread').count()).toBe(0);
    await Promise.all([page.close(), other.close()]);
  });

  it('fits a phone: at 390 px the bell\'s panel opens inside the screen, its list and actions reachable', async () => {
    // Prepare: a mention for pia, on a 390 x 844 page
    const page = await openInbox('acme', 'pia');
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('button', { name: 'Publish mention.created' }).click();
    await expect.poll(() => badge(page).textContent()).toBe('1');

    // Act
    await bell(page).click();
    await expect.poll(() => page.locator('#list .item').count()).toBe(1);

    // Assess: the panel lies within the viewport, and its buttons can be used
    const box = await page.locator('#inbox-panel').boundingBox();
    expect(box).not.toBeNull();
    expect(box!.x).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width).toBeLessThanOrEqual(390);
    expect(box!.width).toBeGreaterThan(300);
    await shot(page, '06-phone-390');
    await page.getByRole('button', { name: 'Mark all as read' }).click();
    await expect.poll(() => page.locator('#list .item.read').count()).toBe(1);
    await page.close();
  });

  for (const width of [1280, 390]) {
    it(`the phone shows the signed-in user's texts, live and after a reload, and no one else's (${width} px)`, async () => {
      // Prepare: a page of the user at that width, and one of another user who gets texts too
      const user = `texter-${width}`;
      const page = await openInbox('acme', user);
      await page.setViewportSize({ width, height: 844 });
      const other = await openInbox('acme', `bystander-${width}`);
      for (const which of [page, other]) {
        await which.getByRole('button', { name: 'Text this user' }).click();
        await which.locator('.toast', { hasText: 'Texts on' }).waitFor(WAIT);
      }
      await page.waitForTimeout(300);
      const phone = page.getByRole('region', { name: 'Phone', exact: true });
      const texts = phone.locator('li.sms');

      // Act: a mention for each user, from the publish panel
      await other.getByRole('button', { name: 'Publish mention.created' }).click();
      await page.getByRole('button', { name: 'Publish mention.created' }).click();

      // Assess: the text arrives on the phone without a reload, from the stand-in's number, to the user's own verified number
      await expect.poll(() => texts.allTextContents(), WAIT).toEqual([expect.stringMatching(/^SMS from \+15555550100Bob mentioned you: Hey @texter-/)]);
      const number = ((await page.locator('#phone-number').textContent()) ?? '').replace('Number ', '');
      expect(number).toMatch(/^\+1555\d{7}$/);
      await expect.poll(() => other.locator('#phone li.sms').count(), WAIT).toBe(1);
      expect(await other.locator('#phone-number').textContent()).not.toContain(number);
      const box = await phone.boundingBox();
      expect(box!.x).toBeGreaterThanOrEqual(0);
      expect(box!.x + box!.width).toBeLessThanOrEqual(width);
      await phone.screenshot({ path: join(ARTIFACTS, `07-phone-texts-${width}.png`) });

      // Act: reload; then STOP from the phone
      await page.reload();
      await page.locator('#connection[data-state="open"]').waitFor(WAIT);
      await expect.poll(() => texts.count(), WAIT).toBe(1);
      await phone.getByRole('textbox', { name: 'Text to send' }).fill('STOP');
      await phone.getByRole('button', { name: 'Send' }).click();

      // Assess: the service's answer arrives and the number shows as opted out; the other user's phone has only its own text
      await expect.poll(() => texts.allTextContents(), WAIT).toEqual([expect.stringContaining('You will get no more notification texts'), expect.stringContaining('Bob mentioned you')]);
      await expect.poll(() => page.locator('#phone-number').textContent(), WAIT).toContain('opted out');
      expect(await other.locator('#phone li.sms').allTextContents()).toEqual([expect.stringContaining(`Hey @bystander-${width}`)]);
      await phone.screenshot({ path: join(ARTIFACTS, `08-phone-stop-${width}.png`) });
      await Promise.all([page.close(), other.close()]);
    });
  }

  it('archive and mark unread from a row, with its action link; the second page follows', async () => {
    // Prepare: a read mention for ann, on two pages
    const page = await openInbox('acme', 'ann');
    const other = await openInbox('acme', 'ann');
    await page.getByRole('button', { name: 'Publish mention.created' }).click();
    await bell(page).click();
    await bell(other).click();
    await expect.poll(() => page.locator('#list .item').count()).toBe(1);
    await page.getByRole('button', { name: 'Mark all as read' }).click();
    await expect.poll(() => other.locator('#list .item.read').count()).toBe(1);
    const row = page.locator('#list .item').first();
    expect(await row.getByRole('link', { name: 'Open link' }).getAttribute('href')).toMatch(/^https:\/\/example\.com\/posts\//);

    // Act: mark unread
    await row.getByRole('button', { name: 'Mark unread' }).click();

    // Assess: unread here and on the other page, counted
    await expect.poll(() => page.locator('#list .item.unread').count()).toBe(1);
    await expect.poll(() => page.locator('#unread-summary').textContent()).toBe('1 unread');
    await expect.poll(() => other.locator('#list .item.unread').count()).toBe(1);
    await shot(page, '05-marked-unread');

    // Act: archive
    await page.locator('#list .item').first().getByRole('button', { name: 'Archive' }).click();

    // Assess: gone from both lists and from the counts
    await expect.poll(() => page.locator('#list .item').count()).toBe(0);
    await expect.poll(() => other.locator('#list .item').count()).toBe(0);
    await expect.poll(() => page.locator('#unread-summary').textContent()).toBe('all read');
    await Promise.all([page.close(), other.close()]);
  });

  it('issue 25, case 9: two pages open while 4 events are published during their first load: each badge equals the server\'s count', async () => {
    const events = new EventBridgeClient({ endpoint: runtime.endpoints.events, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
    // Several rounds, each a fresh user: the events land at different points of the pages' first load.
    for (let round = 0; round < 4; round += 1) {
      const user = `loader-${round}`;
      const token = await runtime.secrets.issueToken({ tenantId: 'acme', userId: user });
      const opening = [context.newPage(), context.newPage()].map(async (pending) => {
        const page = await pending;
        await page.goto(`${runtime.endpoints.http}/?tenant=acme&user=${user}`);
        return page;
      });
      // Four events (urgent mentions, digestible comments), one PutEvents each, while the pages load.
      for (let n = 0; n < 4; n += 1) {
        const detail = n % 2 === 0 ? aMention({ recipients: [user], data: { postId: `p-${round}-${n}`, excerpt: `load ${n}` } }) : aComment(user, { data: { postId: `p-${round}-${n}`, commentId: `c-${round}-${n}`, excerpt: `load ${n}` } });
        const output = await events.send(new PutEventsCommand({ Entries: [putEntry(n % 2 === 0 ? 'mention.created' : 'comment.created', detail)] }));
        expect(output.FailedEntryCount ?? 0).toBe(0);
        await new Promise((resolve) => setTimeout(resolve, 40 * round));
      }
      const pages = await Promise.all(opening);
      const counts = async () => (await (await fetch(`${runtime.endpoints.http}/notifications/counts`, { headers: { authorization: `Bearer ${token}` } })).json()) as { unseen: number };
      await expect.poll(async () => (await counts()).unseen, { timeout: 20_000 }).toBe(4);
      for (const page of pages) await expect.poll(() => badge(page).textContent(), WAIT).toBe('4');
      // And it stays right once every recheck has run (the issue: still wrong 10 s later).
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      for (const page of pages) expect(await badge(page).textContent()).toBe(String((await counts()).unseen));
      await Promise.all(pages.map((page) => page.close()));
    }
    events.destroy();
  });

  it('caps the badge at "99+" and loads older notifications on scroll', async () => {
    // Prepare: 120 mentions for zoe, published as a producer would: 10 per PutEvents, throttled entries
    // (the intake's back-pressure, INTAKE_BACKLOG_SECONDS) sent again after a backoff, any other refusal a failure
    const events = new EventBridgeClient({ endpoint: runtime.endpoints.events, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
    const start = Date.now() - 120_000;
    const entries = Array.from({ length: 120 }, (_, n) => putEntry('mention.created', aMention({ recipients: ['zoe'], time: new Date(start + n * 1000).toISOString(), data: { postId: `p-${n}`, excerpt: `mention number ${n}` } })));
    await putAllEntries(events, entries);
    events.destroy();
    // The pipeline is asynchronous: wait until all 120 are in zoe's inbox, as a user opening the
    // page later would find them (live pushes above the per-user rate limit are held for a minute).
    const token = await runtime.secrets.issueToken({ tenantId: 'acme', userId: 'zoe' });
    await expect.poll(() => countInbox(token), { timeout: 60_000, interval: 250 }).toBe(120);

    // Act
    const page = await openInbox('acme', 'zoe');

    // Assess: the badge says 99+ and the bell's label says it too
    await expect.poll(() => badge(page).textContent(), { timeout: 20_000 }).toBe('99+');
    await expect.poll(() => bell(page).getAttribute('aria-label')).toBe('Notifications, 99+ unseen');

    // Infinite scroll: scrolling the list to the end keeps loading until every one is there
    await bell(page).click();
    await expect.poll(() => page.locator('#list .item').count()).toBeGreaterThanOrEqual(15);
    await shot(page, '04-capped-badge-list');
    const status = page.locator('#list-status');
    for (let i = 0; i < 30 && (await status.textContent()) !== "You're all caught up."; i += 1) {
      await page.locator('#list-scroll').evaluate((element) => element.scrollTo(0, element.scrollHeight));
      await page.waitForTimeout(150);
    }
    expect(await status.textContent()).toBe("You're all caught up.");
    expect(await page.locator('#list .item').count()).toBe(120);
    const ids = await page.locator('#list .item').evaluateAll((items) => items.map((item) => (item as HTMLElement).dataset.id));
    expect(new Set(ids).size).toBe(120);
    expect([...ids].sort().reverse()).toEqual(ids);
    await page.close();
  });
});
