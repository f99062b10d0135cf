/**
 * The generated reference in the docs agrees with the code: every generated region (routes, shapes,
 * WebSocket messages, event envelope, catalog, local settings) is exactly what `npm run
 * docs:reference` renders now, and the region machinery refuses broken or unknown markers.
 */
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fillRegions, pageStates, startMarker } from '../../scripts/docs-reference/regions.js';
import { eventEnvelope, renderers } from '../../scripts/docs-reference/renderers.js';

const root = resolve(import.meta.dirname, '..', '..');

describe('Generated docs reference', () => {
  it('every generated region of README.md and docs/ is up to date (else: npm run docs:reference)', () => {
    // Act
    const stale = pageStates(root, renderers)
      .filter((page) => page.generated !== page.current)
      .map((page) => `${page.file} (${page.regions.join(', ')})`);

    // Assess
    expect(stale, 'stale generated regions: run `npm run docs:reference` and commit the result').toEqual([]);
  });

  it('says what the code accepts: tenantId is any id of 1 to 256 characters', () => {
    const tenantRow = eventEnvelope()
      .split('\n')
      .find((row) => row.startsWith('| `tenantId` |'));
    expect(tenantRow).toContain('must be 1 to 256 characters');
    expect(tenantRow).not.toContain('A-Za-z0-9');
  });

  it('rewrites a stale region and leaves the text around it alone', () => {
    // Prepare
    const page = ['# Page', 'before', startMarker('example', 'a test'), 'old text', '<!-- /generated:example -->', 'after', ''].join('\n');

    // Act
    const { text, regions } = fillRegions(page, { example: () => 'new text' });

    // Assess
    expect(regions).toEqual(['example']);
    expect(text).toBe(['# Page', 'before', startMarker('example', 'a test'), 'new text', '<!-- /generated:example -->', 'after', ''].join('\n'));
    expect(fillRegions(text, { example: () => 'new text' }).text).toBe(text);
  });

  it('refuses a region without its end marker, an unknown region and a stray end marker', () => {
    const open = `${startMarker('example', 'x')}\nbody\n`;
    expect(() => fillRegions(open, { example: () => '' }, 'page.md')).toThrow(/page.md: region example has no end marker/);
    expect(() => fillRegions(`${open}<!-- /generated:example -->\n`, {}, 'page.md')).toThrow(/no renderer for region example/);
    expect(() => fillRegions('text\n<!-- /generated:example -->\n', { example: () => '' }, 'page.md')).toThrow(/end marker without a start/);
  });
});
