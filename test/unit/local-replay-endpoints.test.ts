/** Hostile input on the local StartReplay / DescribeReplay / DescribeArchive: every odd request is a 400 with a named type, never a 500 or a replay. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LOCAL_ARCHIVE_NAME, LocalEventArchive } from '../../src/local/eventbridge/archive.js';
import { LocalBusRules } from '../../src/local/eventbridge/bus-rules.js';
import { createEventBusRoute } from '../../src/local/eventbridge/put-events.js';
import { LOCAL_ACCOUNT_ID, LocalQueue } from '../../src/local/sqs/index.js';
import { findNotificationType } from '../../src/notifications/index.js';
import { aMention } from '../support/events.js';

const REGION = 'us-east-1';
const ARCHIVE_ARN = `arn:aws:events:${REGION}:${LOCAL_ACCOUNT_ID}:archive/${LOCAL_ARCHIVE_NAME}`;
let dir: string;
let intake: LocalQueue;
let route: ReturnType<typeof createEventBusRoute>;

async function call(operation: string, body: string | object) {
  const url = new URL('http://127.0.0.1/');
  const raw = typeof body === 'string' ? body : JSON.stringify(body);
  const response = await route.handle({ method: 'POST', url, headers: { 'x-amz-target': `AWSEvents.${operation}` }, body: Buffer.from(raw), remoteAddress: '127.0.0.1', localAddress: '127.0.0.1' });
  return { status: response!.status, answer: JSON.parse(String(response!.body)) as Record<string, unknown> };
}

const replayOf = (name: unknown, from: unknown, to: unknown) => ({ ReplayName: name, EventSourceArn: ARCHIVE_ARN, EventStartTime: from, EventEndTime: to, Destination: { Arn: 'x' } });

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'local-replay-'));
  intake = new LocalQueue({ name: 'IntakeMentionCreated', baseUrl: 'http://127.0.0.1:0', region: REGION, visibilityTimeoutMs: 1_000 });
  route = createEventBusRoute({ busName: 'notifications', region: REGION, findType: findNotificationType, rules: new LocalBusRules([{ name: 'RuleMentionCreated', pattern: { 'detail-type': ['mention.created'] }, queue: intake }]), archive: new LocalEventArchive(dir) });
  await call('PutEvents', { Entries: [{ EventBusName: 'notifications', Source: 'test', DetailType: 'mention.created', Detail: JSON.stringify(aMention()) }] });
  intake.purge();
});

afterEach(() => {
  intake.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('local archive endpoints under hostile input', () => {
  it('refuses missing, odd and too long replay names, reversed, empty, non-numeric and unbounded ranges, and replays nothing', async () => {
    const nowSeconds = Date.now() / 1000;
    const bad = [
      replayOf(undefined, 0, nowSeconds + 10),
      replayOf('', 0, nowSeconds + 10),
      replayOf('a/b', 0, nowSeconds + 10),
      replayOf('x'.repeat(65), 0, nowSeconds + 10),
      replayOf({ toString: 'x' }, 0, nowSeconds + 10),
      replayOf('reversed', nowSeconds + 10, 0),
      replayOf('empty', nowSeconds, nowSeconds),
      replayOf('strings', '0', String(nowSeconds + 10)),
      replayOf('nulls', null, null),
    ];
    for (const input of bad) {
      const { status, answer } = await call('StartReplay', input);
      expect(status).toBe(400);
      expect(answer.__type).toBe('ValidationException');
    }
    expect((await call('StartReplay', { ...replayOf('other-archive', 0, nowSeconds + 10), EventSourceArn: 'arn:aws:events:x:y:archive/__proto__' })).answer.__type).toBe('ResourceNotFoundException');
    expect(intake.size).toBe(0);
  });

  it('answers prototype-named replays and archives as unknown, and survives non-object and deeply nested bodies', async () => {
    for (const name of ['__proto__', 'constructor', 'toString']) {
      expect(await call('DescribeReplay', { ReplayName: name })).toMatchObject({ status: 400, answer: { __type: 'ResourceNotFoundException' } });
      expect(await call('DescribeArchive', { ArchiveName: name })).toMatchObject({ status: 400, answer: { __type: 'ResourceNotFoundException' } });
    }
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    for (const body of ['null', '[]', '"x"', '42', '{', deep, `{"ReplayName":${deep}}`]) {
      const { status, answer } = await call('StartReplay', body);
      expect(status).toBe(400);
      expect(['ValidationException', 'ResourceNotFoundException']).toContain(answer.__type);
    }
    expect(intake.size).toBe(0);
  });

  it('replays a huge range as the archive holds it, and a second StartReplay of the same name is refused', async () => {
    const huge = replayOf('__proto__', 0, 8.64e15);
    expect((await call('StartReplay', huge)).status).toBe(200);
    expect(intake.size).toBe(1);
    expect(await call('DescribeReplay', { ReplayName: '__proto__' })).toMatchObject({ status: 200, answer: { State: 'COMPLETED', StateReason: 'replayed 1 events' } });
    expect((await call('StartReplay', huge)).answer.__type).toBe('ResourceAlreadyExistsException');
    expect(intake.size).toBe(1);
  });
});
