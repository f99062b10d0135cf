/**
 * dynalite in a child process, for suites that time client work against database work: on AWS,
 * DynamoDB's work does not run on the caller's CPU, so it should not run on the bench's thread either.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { once } from 'node:events';
import { ensureTables, localTableNames, type EmbeddedDynamo } from '../src/local/embedded-dynamo.js';

const require = createRequire(import.meta.url);

export async function startSeparateDynamo(): Promise<EmbeddedDynamo> {
  const script = `
    const server = require(${JSON.stringify(require.resolve('dynalite'))})({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
    server.listen(0, '127.0.0.1', () => process.stdout.write(String(server.address().port) + '\\n'));
  `;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [chunk] = (await once(child.stdout, 'data')) as [Buffer];
  const endpoint = `http://127.0.0.1:${Number(chunk.toString().trim())}`;
  const tableNames = localTableNames();
  await ensureTables(endpoint, tableNames);
  return {
    endpoint,
    tableNames,
    async close() {
      child.kill();
      await once(child, 'exit');
    },
  };
}
