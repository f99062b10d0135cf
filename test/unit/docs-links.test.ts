/**
 * The README is a short front door and the docs hold together: the quick start's two command lines
 * are there as they are, every relative link of README.md and docs/ reaches an existing file, and
 * every `#anchor` names a heading of its target page (as GitHub renders it).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..', '..');

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

const pages = [join(root, 'README.md'), ...markdownFiles(join(root, 'docs'))];

/** Markdown outside fenced code blocks (a link inside a code sample is not a link). */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, '');
}

/** GitHub's heading anchor: lowercase, punctuation dropped, spaces to hyphens, repeats numbered. */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading] of prose(text).matchAll(/^#{1,6} +(.+?) *$/gm)) {
    const slug = heading!.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
    seen.set(slug, count + 1);
  }
  return anchors;
}

describe('Docs', () => {
  it('the README keeps the quick start lines exactly and stays a front door (at most about 300 lines)', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const lines = readme.split('\n');
    expect(lines).toContain('npm ci && npm start     # local runtime: REST + PutEvents on :3000, WebSocket on :3001');
    expect(lines).toContain('npm ci && npm test      # unit, integration (dynalite), infrastructure and end-to-end tests');
    expect(lines.length).toBeLessThanOrEqual(300);
  });

  it('every relative link reaches a file, and every anchor a heading of its page', () => {
    // Act
    const broken: string[] = [];
    for (const page of pages) {
      const text = readFileSync(page, 'utf8');
      for (const [, target] of prose(text).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        const [path, anchor] = target!.split('#') as [string, string | undefined];
        const file = path === '' ? page : resolve(dirname(page), path);
        const where = `${relative(root, page)} -> ${target}`;
        if (!existsSync(file)) broken.push(`${where}: no such file`);
        else if (anchor !== undefined && file.endsWith('.md') && !anchorsOf(readFileSync(file, 'utf8')).has(anchor)) broken.push(`${where}: no such heading`);
      }
    }

    // Assess
    expect(broken).toEqual([]);
  });

  it('finds headings the way GitHub names them (the check above can fail)', () => {
    const anchors = anchorsOf('# Scheduled sends (`sendAt`)\n## Why didn\'t user X get notification Y?\n## Notes\n## Notes\n```\n# not a heading\n```\n');
    expect([...anchors]).toEqual(['scheduled-sends-sendat', 'why-didnt-user-x-get-notification-y', 'notes', 'notes-1']);
  });
});
