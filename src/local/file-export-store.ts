/**
 * The local stand-in for the export bucket: files under DATA_DIR/exports (mode 0600), the same keys
 * as on AWS. Locally the "link" is the file's path: there is no presigned URL (a difference from AWS,
 * written in docs/privacy.md).
 */
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import type { ExportStore } from '../core/ports/export-store.js';

export class FileExportStore implements ExportStore {
  constructor(private readonly dir: string) {}

  /** The file of `key`, never outside the directory (keys are built by privacy-jobs.ts; this guards anyway). */
  pathOf(key: string): string {
    const path = resolve(this.dir, key);
    if (!path.startsWith(`${resolve(this.dir)}${sep}`)) throw new Error(`export key ${JSON.stringify(key)} leaves the export directory`);
    return path;
  }

  async put(key: string, body: string): Promise<void> {
    const path = this.pathOf(key);
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    await writeFile(path, body, { mode: 0o600 });
  }

  async deletePrefix(prefix: string): Promise<number> {
    const dir = this.pathOf(join(prefix, '.'));
    let files: string[];
    try {
      files = await readdir(dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw error;
    }
    await rm(dir, { recursive: true, force: true });
    return files.length;
  }
}
