/**
 * CATALOG_ENTRY (issue 30): the local runtime takes a team's catalog module as the construct does,
 * bundled (the package's own imports resolved to this checkout), and refuses with the problem named
 * when the module does not build, exports no `catalog`, or holds a type the construct would refuse.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CatalogEntryError, loadCatalogEntry } from '../../src/local/catalog-entry.js';

const repoRoot = join(import.meta.dirname, '..', '..');
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'catalog-entry-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function aModule(name: string, source: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, source);
  return path;
}

describe('loadCatalogEntry', () => {
  it("loads the team's module with its imports of the package, types that validate and render", async () => {
    // Act
    const types = await loadCatalogEntry(join(repoRoot, 'examples', 'team-catalog', 'notifications', 'index.ts'), join(dir, 'out'));

    // Assess
    expect(types.map((type) => type.detailType)).toEqual(['invoice.paid', 'follow.created', 'follow.deleted']);
    const invoicePaid = types[0]!;
    const data = invoicePaid.dataSchema.parse({ invoiceId: 'INV-1', amountCents: 500, url: 'https://billing.example.com/i/1' });
    expect(invoicePaid.render({ actor: { id: 'billing', name: 'Billing' }, data })).toEqual({ title: 'Billing paid invoice INV-1', body: '5.00 received' });
    expect(invoicePaid.dataSchema.safeParse({ invoiceId: 'INV-1', amountCents: -1, url: 'javascript:alert(1)' }).success).toBe(false);
  });

  it('refuses a module without `catalog`, one that does not build, and a catalog the construct would refuse, naming the problem', async () => {
    // Prepare
    const noCatalog = await aModule('no-catalog.ts', 'export const types = [];\n');
    const broken = await aModule('broken.ts', "import { nothing } from './missing.js';\nexport const catalog = [nothing];\n");
    const badType = await aModule(
      'bad-type.ts',
      "import * as z from 'zod';\nexport const catalog = [{ detailType: 'Invoice Paid', dataSchema: z.object({}), defaultPriority: 'asap', audience: 'recipients', digestible: false, render: () => ({ title: '', body: '' }) }];\n",
    );

    // Act + Assess
    await expect(loadCatalogEntry(noCatalog, join(dir, 'out'))).rejects.toThrow(/must export `catalog`/);
    await expect(loadCatalogEntry(broken, join(dir, 'out'))).rejects.toThrow(CatalogEntryError);
    await expect(loadCatalogEntry(broken, join(dir, 'out'))).rejects.toThrow(/does not build/);
    const refused = loadCatalogEntry(badType, join(dir, 'out'));
    await expect(refused).rejects.toThrow(/detailType "Invoice Paid" must be lowercase words/);
    await expect(loadCatalogEntry(badType, join(dir, 'out'))).rejects.toThrow(/defaultPriority must be one of urgent, info, got "asap"/);
  });
});
