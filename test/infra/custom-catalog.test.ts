/**
 * A team's own catalog (issue 16): `NotificationInbox` refuses a bad `catalog` / `catalogEntry` at
 * synth with every problem named (test/infra/notification-inbox.test.ts synthesizes a good one), and the functions that
 * read the catalog bundle the team's module in place of the package's (the same esbuild alias the
 * construct passes; `npm run test:package` checks the real `cdk synth` bundling).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { build } from 'esbuild';
import * as z from 'zod';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleSettings, entryPath, PROJECT_ROOT } from '../../lib/bundling.js';
import { catalogAlias, resolveCatalog } from '../../lib/catalog.js';
import { NotificationInbox, type NotificationInboxProps } from '../../lib/index.js';
import type { NotificationType } from '../../src/core/ports/notification-type.js';
import { defineNotificationType } from '../../src/notifications/authoring.js';
import { catalog as builtInCatalog, mentionCreated } from '../../src/notifications/index.js';
import { catalog as teamCatalog, invoicePaid, TEAM_TYPE_MARKER } from './fixtures/team-catalog.js';

const TEAM_ENTRY = join(import.meta.dirname, 'fixtures', 'team-catalog.ts');
const scratch = mkdtempSync(join(tmpdir(), 'team-catalog-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Only ever reaches the catalog check here: a bad catalog throws before any resource is built. */
function synth(props: NotificationInboxProps): NotificationInbox {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  return new NotificationInbox(new Stack(app, 'Host'), 'Notifications', props);
}

const typeOf = (detailType: string, overrides: Partial<NotificationType> = {}): NotificationType =>
  ({ ...defineNotificationType({ detailType, dataSchema: z.object({}).strict(), defaultPriority: 'info', audience: 'recipients', digestible: false, render: () => ({ title: detailType, body: '' }) }), ...overrides }) as NotificationType;

describe('NotificationInbox with a team catalog', () => {
  it('refuses at synth, naming each problem: duplicates, bad names, clashing names, missing schema or render', () => {
    const bad = [invoicePaid, invoicePaid, typeOf('Invoice Paid!'), typeOf('invoice-paid'), typeOf('order.shipped', { dataSchema: undefined as never }), typeOf('order.lost', { render: undefined as never })];
    expect(() => synth({ catalog: bad, catalogEntry: TEAM_ENTRY })).toThrow(/type invoice\.paid is in the catalog twice/);
    for (const problem of [/detailType "Invoice Paid!" must be lowercase words/, /invoice\.paid and invoice-paid share the resource name InvoicePaid/, /order\.shipped: dataSchema is missing/, /order\.lost: render is missing/]) {
      expect(() => synth({ catalog: bad, catalogEntry: TEAM_ENTRY })).toThrow(problem);
    }
    expect(() => synth({ catalog: [], catalogEntry: TEAM_ENTRY })).toThrow(/the catalog is empty/);
    expect(() => synth({ catalog: [typeOf('order.placed', { audience: 'everyone' as never, graphEffect: 'follow' } as never)], catalogEntry: TEAM_ENTRY })).toThrow(/audience must be one of[\s\S]*graphEffect must be one of/);
  });

  it('refuses types of its own without catalogEntry, and an entry that is missing, relative or exports no catalog', () => {
    expect(() => synth({ catalog: teamCatalog })).toThrow(/types invoice\.paid are not the package's: pass catalogEntry/);
    expect(resolveCatalog([mentionCreated], undefined).types).toEqual([mentionCreated]);
    expect(() => synth({ catalog: teamCatalog, catalogEntry: join(scratch, 'missing.ts') })).toThrow(/does not exist/);
    expect(() => synth({ catalog: teamCatalog, catalogEntry: 'notifications/index.ts' })).toThrow(/must be an absolute path/);
    const noExport = join(scratch, 'no-export.ts');
    writeFileSync(noExport, 'export const types = [];\n');
    expect(() => synth({ catalog: teamCatalog, catalogEntry: noExport })).toThrow(/must export `catalog`/);
    expect(() => synth({ catalogEntry: TEAM_ENTRY })).toThrow(/catalogEntry needs catalog/);
  });
});

describe('functions bundled with the team catalog', () => {
  // The handlers whose code reads the catalog: fan-out (validation, render), REST (rendering, categories, preferences), delivery (digests).
  it.each(['fanout', 'rest-read', 'rest-preferences', 'delivery'] as const)('%s carries the team type and none of the package-only types', async (handler) => {
    // Act
    const [, target] = catalogAlias(TEAM_ENTRY).split('=');
    const bundle = await build({
      entryPoints: [entryPath(handler)],
      absWorkingDir: PROJECT_ROOT,
      bundle: true,
      write: false,
      platform: 'node',
      format: 'esm',
      target: bundleSettings.target,
      external: [...bundleSettings.externals],
      alias: { '#notifications-catalog': target! },
      logLevel: 'silent',
    });
    const code = bundle.outputFiles[0]!.text;

    // Assess
    expect(code).toContain(TEAM_TYPE_MARKER);
    const packageOnly = builtInCatalog.filter((type) => !teamCatalog.some((team) => team.detailType === type.detailType));
    for (const type of packageOnly) expect(code, type.detailType).not.toContain(`"${type.detailType}"`);
  }, 30_000);
});
