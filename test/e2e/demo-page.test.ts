/**
 * The demo page's dev-only routes on the local runtime: the page and its bundle are served, a dev
 * token works on the REST API, the sample event of every catalog type is accepted by PutEvents, and the contract files are served.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalog } from '../../src/notifications/index.js';
import { startLocalRuntime, type LocalRuntime } from '../../src/local/runtime.js';
import { localSettingsFromEnv } from '../../src/local/settings.js';

let runtime: LocalRuntime;
let dataDir: string;

interface CatalogAnswer {
  types: Array<{ detailType: string; sample: { detailType: string; detail: Record<string, unknown> }; prerequisite: { detailType: string; detail: Record<string, unknown> } | null }>;
}

async function putEvents(entries: Array<{ detailType: string; detail: Record<string, unknown> }>) {
  const response = await fetch(`${runtime.endpoints.events}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': 'AWSEvents.PutEvents' },
    body: JSON.stringify({
      Entries: entries.map((entry, index) => ({
        Source: 'test.demo-page',
        DetailType: entry.detailType,
        Detail: JSON.stringify({ ...entry.detail, id: `demo-test-${index}-${Date.now()}` }),
        EventBusName: runtime.endpoints.eventBusName,
      })),
    }),
  });
  return { status: response.status, body: (await response.json()) as { FailedEntryCount: number; Entries: Array<{ ErrorMessage?: string }> } };
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'demo-page-e2e-'));
  runtime = await startLocalRuntime({ ...localSettingsFromEnv({}), port: 0, wsPort: 0, dataDir });
});

afterAll(async () => {
  await runtime?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('The demo page routes of the local runtime', () => {
  it('serve the page with the WebSocket endpoint, its styles and its bundled script', async () => {
    const page = await fetch(`${runtime.endpoints.http}/`);
    const html = await page.text();
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(html).toContain(JSON.stringify(runtime.endpoints.ws));

    const script = await fetch(`${runtime.endpoints.http}/demo/app.js`);
    expect(script.status).toBe(200);
    expect(await script.text()).toContain('createInboxClient');
    expect((await fetch(`${runtime.endpoints.http}/demo/styles.css`)).status).toBe(200);
  });

  it('issue a dev token the REST API accepts, and refuse a bad identity', async () => {
    const answer = await fetch(`${runtime.endpoints.http}/dev/token`, { method: 'POST', body: JSON.stringify({ tenantId: 'acme', userId: 'alice' }) });
    const { token, expiresAt } = (await answer.json()) as { token: string; expiresAt: string };
    expect(Date.parse(expiresAt)).toBeGreaterThan(Date.now());
    const counts = await fetch(`${runtime.endpoints.http}/notifications/counts`, { headers: { authorization: `Bearer ${token}` } });
    expect(counts.status).toBe(200);

    const bad = await fetch(`${runtime.endpoints.http}/dev/token`, { method: 'POST', body: JSON.stringify({ tenantId: 'acme', userId: '' }) });
    expect(bad.status).toBe(400);
  });

  it('describe every catalog type with a sample event that PutEvents accepts', async () => {
    const answer = (await (await fetch(`${runtime.endpoints.http}/dev/catalog?tenant=acme&user=alice&actor=bob`)).json()) as CatalogAnswer;
    expect(answer.types.map((type) => type.detailType)).toEqual(catalog.map((type) => type.detailType));

    const samples = answer.types.flatMap((type) => [type.sample, ...(type.prerequisite ? [type.prerequisite] : [])]);
    const published = await putEvents(samples);

    expect(published.status).toBe(200);
    expect(published.body.Entries.map((entry) => entry.ErrorMessage)).toEqual(samples.map(() => undefined));
  });

  it('serve the contract files generated from the zod schemas', async () => {
    const openapi = await fetch(`${runtime.endpoints.http}/openapi.json`);
    expect(openapi.status).toBe(200);
    expect(((await openapi.json()) as { paths: Record<string, unknown> }).paths).toHaveProperty(['/notifications']);
    const events = (await (await fetch(`${runtime.endpoints.http}/schemas/events.json`)).json()) as { $defs: Record<string, unknown> };
    expect(Object.keys(events.$defs).sort()).toEqual(catalog.map((type) => type.detailType).sort());
    const websocket = (await (await fetch(`${runtime.endpoints.http}/schemas/websocket.json`)).json()) as { $defs: Record<string, unknown> };
    expect(websocket.$defs).toHaveProperty(['server.notification']);
  });
});
