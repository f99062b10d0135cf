/**
 * `npm run migrate`: upgrades the data of a 0.1.0 deployment. Three steps: builds every user's
 * followed-celebrities pack (src/core/model/followed-pack.ts) from their FOLLOWING_CELEBS edges, with one
 * Scan of the Graph table; then indexes every logged celebrity post in the count index
 * (src/core/model/celebrity-posts-index.ts), with one Scan of the Inbox table; then converts the
 * single reads (READ#) into per-item exceptions (src/adapters/dynamo/read-state-migration.ts), with one
 * Scan of the ReadMarks table; then writes the erasure footprint of older data (FOLLOWING entries and
 * the author index attribute, src/adapters/dynamo/erasure-footprint-migration.ts), with one Scan of the
 * Graph table and one of the Inbox table. Idempotent: run it again, or after a kill (`--start-key` resumes at the
 * last page it printed), and it ends the same. Locally it works on the running runtime of DATA_DIR
 * (which also runs it by itself at start); on AWS give `--graph-table` and `--inbox-table`.
 */
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { migrateCelebrityPostsIndex } from '../adapters/dynamo/celebrity-posts-log.js';
import { migrateErasureFootprint } from '../adapters/dynamo/erasure-footprint-migration.js';
import { migrateReadState } from '../adapters/dynamo/read-state-migration.js';
import { migrateFollowedCelebrityPacks, type PackBackfillOptions, type PackBackfillReport } from '../adapters/dynamo/followed-celebs-pack.js';
import { localSettingsFromEnv } from '../local/settings.js';
import { localTarget, parseNumberFlag } from './targets.js';

/** `--start-key`: a page key as printed by a previous run (JSON of pk and sk). */
export function parseStartKey(value: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new Error(`--start-key must be the JSON key a previous run printed, got ${JSON.stringify(value)}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed) || typeof (parsed as { pk?: unknown }).pk !== 'string' || typeof (parsed as { sk?: unknown }).sk !== 'string') {
    throw new Error('--start-key must be a JSON object with string pk and sk');
  }
  const { pk, sk } = parsed as { pk: string; sk: string };
  return { pk, sk };
}

export function formatPackBackfillReport(report: PackBackfillReport): string {
  return [
    `followed-celebrities packs: ${report.packed} follows packed from ${report.scanned} graph items in ${report.pages} Scan pages`,
    `  skipped (no followedAt)   ${report.skipped}`,
    `  not packed (chunk full)   ${report.full}`,
  ].join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'graph-table': { type: 'string' },
      'inbox-table': { type: 'string' },
      'read-marks-table': { type: 'string' },
      region: { type: 'string' },
      'start-key': { type: 'string' },
      'page-limit': { type: 'string' },
      parallelism: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stderr.write('usage: npm run --silent migrate -- [--graph-table <table> --inbox-table <table> --read-marks-table <table> [--region <r>]] [--start-key <json>] [--page-limit <n>] [--parallelism <n>] [--json]\n');
    process.exit(2);
  }
  const options: PackBackfillOptions = {
    ...(values['start-key'] !== undefined ? { startKey: parseStartKey(values['start-key']) } : {}),
    ...(values['page-limit'] !== undefined ? { pageLimit: parseNumberFlag('page-limit', values['page-limit'], 1) } : {}),
    ...(values.parallelism !== undefined ? { parallelism: parseNumberFlag('parallelism', values.parallelism, 1) } : {}),
    onPage: (progress, nextKey) => {
      if (nextKey) process.stderr.write(`page ${progress.pages}: ${progress.packed} packed; resume with --start-key '${JSON.stringify(nextKey)}'\n`);
    },
    onFull: (writes) => process.stderr.write(`WARN ${writes.length} follow(s) not packed: their chunk is at the 400 KB DynamoDB item limit (${writes.map((write) => write.key.pk).join(', ')})\n`),
  };
  let client: DynamoDBDocumentClient;
  let graphTable: string;
  let inboxTable: string;
  let readMarksTable: string;
  let destroy: () => void;
  if (values['graph-table']) {
    if (!values['inbox-table']) throw new Error('--inbox-table is required with --graph-table (the count index step)');
    if (!values['read-marks-table']) throw new Error('--read-marks-table is required with --graph-table (the read state step)');
    inboxTable = values['inbox-table'];
    readMarksTable = values['read-marks-table'];
    const dynamo = new DynamoDBClient(values.region ? { region: values.region } : {});
    client = DynamoDBDocumentClient.from(dynamo);
    graphTable = values['graph-table'];
    destroy = () => dynamo.destroy();
  } else {
    const target = await localTarget(localSettingsFromEnv().dataDir);
    if (!target.tables) throw new Error('the local runtime info has no table names');
    client = target.documentClient;
    graphTable = target.tables.graph;
    inboxTable = target.tables.inbox;
    readMarksTable = target.tables.readMarks;
    destroy = () => target.destroy();
  }
  try {
    const report = await migrateFollowedCelebrityPacks(client, graphTable, options);
    const indexed = await migrateCelebrityPostsIndex(client, graphTable, inboxTable);
    const singleReads = await migrateReadState(client, graphTable, readMarksTable);
    const footprint = await migrateErasureFootprint(client, { graph: graphTable, inbox: inboxTable });
    process.stdout.write(
      values.json
        ? `${JSON.stringify({ ...report, celebrityPostsIndexed: indexed, singleReadsConverted: singleReads, erasureFootprint: footprint }, null, 2)}\n`
        : `${formatPackBackfillReport(report)}\ncelebrity posts count index: ${indexed} logged posts indexed\nread state: ${singleReads} single reads converted to per-item exceptions\nerasure footprint: ${footprint.followingEntries} FOLLOWING entries, ${footprint.authorRefs} notifications indexed by author, ${footprint.skipped} hashed keys skipped\n`,
    );
  } finally {
    destroy();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
