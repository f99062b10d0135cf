/**
 * `.local/running.json`: which local runtime runs from this directory (its pid, DATA_DIR and
 * endpoints), written by `npm start` and removed when it stops, so `npm run token` signs with that
 * runtime's key instead of guessing a DATA_DIR.
 */
import { readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';

export const RUNNING_RUNTIME_FILE = '.local/running.json';

export interface RunningRuntime {
  pid: number;
  /** Absolute. */
  dataDir: string;
  http: string;
  ws: string;
}

export async function writeRunningRuntime(runtime: RunningRuntime, file = RUNNING_RUNTIME_FILE): Promise<void> {
  await mkdir(resolve(file, '..'), { recursive: true });
  await writeFile(file, `${JSON.stringify({ ...runtime, dataDir: resolve(runtime.dataDir) }, null, 2)}\n`);
}

/** Removes the file if it still names `pid` (a runtime started since keeps its own). */
export async function clearRunningRuntime(pid: number, file = RUNNING_RUNTIME_FILE): Promise<void> {
  const running = await readRunningRuntime(file);
  if (running?.pid === pid) await rm(file, { force: true });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The runtime the file names, if that process still runs. */
export async function readRunningRuntime(file = RUNNING_RUNTIME_FILE): Promise<RunningRuntime | undefined> {
  let running: RunningRuntime;
  try {
    running = JSON.parse(await readFile(file, 'utf8')) as RunningRuntime;
  } catch {
    return undefined;
  }
  return Number.isInteger(running.pid) && typeof running.dataDir === 'string' && isAlive(running.pid) ? running : undefined;
}
