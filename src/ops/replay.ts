/**
 * `npm run replay -- --from <ISO> --to <ISO> [--dry-run] [--name <replay>]`: replays the events the
 * bus archive received in [from, to) into the bus (EventBridge StartReplay, then DescribeReplay until
 * it ends). Safe to run twice: replayed events keep their producer event ids, and the fan-out's
 * idempotency record, arrival stamp and deterministic notification ids make a second copy a no-op.
 * Locally it talks to the running runtime of DATA_DIR (its bus keeps an archive); on AWS pass
 * `--archive-arn` and `--bus-arn` (`cdk deploy` outputs; the archive is `<bus>` + `Archive`).
 * `--dry-run` counts the events of the range by type locally; on AWS, where an archive cannot be
 * listed, it prints the archive's total count and retention (DescribeArchive) and replays nothing.
 */
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { DescribeArchiveCommand, DescribeReplayCommand, StartReplayCommand, type EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { LOCAL_ARCHIVE_NAME, LocalEventArchive, readArchiveFile } from '../local/eventbridge/archive.js';
import { LOCAL_REGION } from '../local/embedded-dynamo.js';
import { LOCAL_ACCOUNT_ID } from '../local/sqs/index.js';
import { localSettingsFromEnv } from '../local/settings.js';
import { awsTarget, localTarget, type OpsTarget } from './targets.js';

export interface ReplayRange {
  fromMs: number;
  toMs: number;
}

export interface ReplayResult {
  name: string;
  state: string;
  reason?: string;
}

const POLL_MS = 1_000;
const TERMINAL = new Set(['COMPLETED', 'FAILED', 'CANCELLED']);

/** The local archive's and bus's ARNs (as the local EventBridge endpoint names them). */
export function localArchiveArns(busName: string): { archiveArn: string; busArn: string } {
  return {
    archiveArn: `arn:aws:events:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:archive/${LOCAL_ARCHIVE_NAME}`,
    busArn: `arn:aws:events:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:event-bus/${busName}`,
  };
}

/** Dry run on a local DATA_DIR: the archived events of the range, by detail-type. */
export function countLocalArchive(dataDir: string, range: ReplayRange): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const event of readArchiveFile(LocalEventArchive.fileOf(dataDir))) {
    if (event.archivedAtMs >= range.fromMs && event.archivedAtMs < range.toMs) counts[event.detailType] = (counts[event.detailType] ?? 0) + 1;
  }
  return counts;
}

/** StartReplay, then DescribeReplay until the replay ends. */
export async function startReplay(
  events: EventBridgeClient,
  arns: { archiveArn: string; busArn: string },
  range: ReplayRange,
  name: string,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
): Promise<ReplayResult> {
  await events.send(
    new StartReplayCommand({ ReplayName: name, EventSourceArn: arns.archiveArn, EventStartTime: new Date(range.fromMs), EventEndTime: new Date(range.toMs), Destination: { Arn: arns.busArn } }),
  );
  for (;;) {
    const described = await events.send(new DescribeReplayCommand({ ReplayName: name }));
    const state = described.State ?? 'UNKNOWN';
    if (TERMINAL.has(state)) return { name, state, ...(described.StateReason ? { reason: described.StateReason } : {}) };
    await sleep(POLL_MS);
  }
}

function parseTime(flag: string, value: string | undefined): number {
  const ms = value === undefined ? Number.NaN : Date.parse(value);
  if (!Number.isFinite(ms)) throw new Error(`--${flag} must be an ISO time, got ${String(value)}`);
  return ms;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      from: { type: 'string' },
      to: { type: 'string' },
      'dry-run': { type: 'boolean', default: false },
      name: { type: 'string' },
      'archive-arn': { type: 'string' },
      'bus-arn': { type: 'string' },
      region: { type: 'string' },
    },
  });
  if (!values.from || !values.to) {
    process.stderr.write('usage: npm run --silent replay -- --from <ISO time> --to <ISO time> [--dry-run] [--name <replay name>] [--archive-arn <arn> --bus-arn <arn> [--region <r>]]\n');
    process.exit(2);
  }
  const range = { fromMs: parseTime('from', values.from), toMs: parseTime('to', values.to) };
  if (range.fromMs >= range.toMs) throw new Error('--from must be before --to');
  const aws = values['archive-arn'] !== undefined;
  const dataDir = localSettingsFromEnv().dataDir;
  const target: OpsTarget = aws ? awsTarget(values.region ? { region: values.region } : {}) : await localTarget(dataDir);
  try {
    const arns = aws ? { archiveArn: values['archive-arn']!, busArn: values['bus-arn'] ?? '' } : localArchiveArns(target.eventBusName ?? 'notifications');
    if (values['dry-run']) {
      if (!aws) {
        const counts = countLocalArchive(dataDir, range);
        const total = Object.values(counts).reduce((sum, count) => sum + count, 0);
        process.stdout.write(`${JSON.stringify({ dryRun: true, from: values.from, to: values.to, wouldReplay: total, byType: counts }, null, 2)}\n`);
        return;
      }
      const archive = await target.events.send(new DescribeArchiveCommand({ ArchiveName: arns.archiveArn.split('/').pop()! }));
      process.stdout.write(
        `${JSON.stringify({ dryRun: true, archive: archive.ArchiveName, eventCount: archive.EventCount, retentionDays: archive.RetentionDays, note: 'EventBridge cannot list an archive: the count is the whole archive, not the range' }, null, 2)}\n`,
      );
      return;
    }
    const name = values.name ?? `replay-${new Date().toISOString().replace(/[^0-9]/g, '').slice(0, 14)}`;
    const result = await startReplay(target.events, arns, range, name);
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    if (result.state !== 'COMPLETED') process.exitCode = 1;
  } finally {
    target.destroy();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
