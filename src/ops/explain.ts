/**
 * `npm run explain -- --tenant <t> --user <u> --event <eventId>`: what happened to an event for one
 * user, stage by stage (accepted, invalid, muted, inbox written, quiet hours, rate limited, live
 * delivery off, delivered live, deduplicated, released, dead-lettered), from the delivery trace.
 * Locally it reads the running runtime of DATA_DIR; with `--table <idempotency table> --inbox-table
 * <inbox table>` it reads AWS (a user's records live in the Inbox table, the event's in the Idempotency table).
 */
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { DynamoTraceRepository } from '../adapters/dynamo/trace-repository.js';
import { formatTrace, type TraceEntry } from '../core/ports/trace.js';
import { localSettingsFromEnv } from '../local/settings.js';
import { awsTarget, localTarget, type OpsTarget } from './targets.js';

export async function explainEvent(target: OpsTarget, tenantId: string, userId: string, eventId: string, inboxTable = target.tables?.inbox): Promise<TraceEntry[]> {
  if (!inboxTable) throw new Error('explain needs the Inbox table (--inbox-table on AWS)');
  return new DynamoTraceRepository(target.documentClient, { idempotencyTable: target.idempotencyTable, inboxTable }).explain(tenantId, userId, eventId);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { tenant: { type: 'string' }, user: { type: 'string' }, event: { type: 'string' }, table: { type: 'string' }, 'inbox-table': { type: 'string' }, region: { type: 'string' }, json: { type: 'boolean', default: false } },
  });
  if (!values.tenant || !values.user || !values.event) {
    process.stderr.write('usage: npm run --silent explain -- --tenant <tenant> --user <user> --event <eventId> [--json] [--table <idempotency table> --inbox-table <inbox table> [--region <region>]]\n');
    process.exit(2);
  }
  const target = values.table ? awsTarget({ table: values.table, ...(values.region ? { region: values.region } : {}) }) : await localTarget(localSettingsFromEnv().dataDir);
  try {
    const entries = await explainEvent(target, values.tenant, values.user, values.event, values['inbox-table'] ?? target.tables?.inbox);
    process.stdout.write(`${values.json ? JSON.stringify(entries, null, 2) : formatTrace(entries)}\n`);
  } finally {
    target.destroy();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
