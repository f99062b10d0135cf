/**
 * Generated regions of the docs pages: the text between `<!-- generated:<name> ... -->` and
 * `<!-- /generated:<name> -->` belongs to the renderer of that name and is rewritten whole by
 * `npm run docs:reference`; everything outside the markers is hand-written and left alone.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

export type Renderers = Readonly<Record<string, () => string>>;

const START = /<!-- generated:([a-z0-9-]+)\b[^>]*-->/g;
const endMarker = (name: string) => `<!-- /generated:${name} -->`;

/** The marker that opens a region, with the note a reader of the page sees in the source. */
export function startMarker(name: string, source: string): string {
  return `<!-- generated:${name} (do not edit: \`npm run docs:reference\` writes it from ${source}) -->`;
}

/** `text` with every region's body replaced by its renderer's output; throws on a broken or unknown region. */
export function fillRegions(text: string, renderers: Renderers, file = '(text)'): { text: string; regions: string[] } {
  const regions: string[] = [];
  let out = '';
  let from = 0;
  for (const match of text.matchAll(START)) {
    const name = match[1]!;
    const bodyStart = match.index + match[0].length;
    if (bodyStart < from) throw new Error(`${file}: region ${name} starts inside another region`);
    const end = text.indexOf(endMarker(name), bodyStart);
    if (end < 0) throw new Error(`${file}: region ${name} has no end marker ${endMarker(name)}`);
    const nested = text.slice(bodyStart, end).match(START);
    if (nested) throw new Error(`${file}: region ${name} contains another region's marker`);
    const render = renderers[name];
    if (!render) throw new Error(`${file}: no renderer for region ${name} (known: ${Object.keys(renderers).join(', ')})`);
    out += `${text.slice(from, bodyStart)}\n${render().trimEnd()}\n`;
    from = end;
    regions.push(name);
  }
  const stray = text.slice(from).match(/<!-- \/generated:([a-z0-9-]+) -->/g)?.filter((marker) => !regions.some((name) => marker === endMarker(name)));
  if (stray?.length) throw new Error(`${file}: end marker without a start: ${stray.join(', ')}`);
  return { text: out + text.slice(from), regions };
}

export interface PageState {
  /** Repository-relative path. */
  file: string;
  current: string;
  generated: string;
  regions: string[];
}

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

/**
 * Every Markdown page under `docs/` (and the README) with its text as it is and as generated.
 * Throws when a renderer has no region left in any page (a region deleted by hand).
 */
export function pageStates(root: string, renderers: Renderers): PageState[] {
  const files = [join(root, 'README.md'), ...markdownFiles(join(root, 'docs'))];
  const pages = files.map((path) => {
    const current = readFileSync(path, 'utf8');
    const file = relative(root, path);
    const { text, regions } = fillRegions(current, renderers, file);
    return { file, current, generated: text, regions };
  });
  const used = new Set(pages.flatMap((page) => page.regions));
  const unused = Object.keys(renderers).filter((name) => !used.has(name));
  if (unused.length > 0) throw new Error(`generated regions missing from the docs: ${unused.join(', ')}`);
  return pages;
}
