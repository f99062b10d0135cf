/**
 * The coalescing clients (adapters/dynamo/coalescing-client.ts, adapters/sqs/coalescing-sqs-client.ts)
 * over mocked SDK clients: what concurrent callers send in one turn shares requests within the
 * service's limits, and each caller gets exactly its own outcome (unprocessed items, failed
 * entries, a whole request's error); calls it cannot share go out unchanged.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, BatchWriteCommand, DynamoDBDocumentClient, type BatchGetCommandInput, type BatchWriteCommandInput, type BatchWriteCommandOutput } from '@aws-sdk/lib-dynamodb';
import { SendMessageBatchCommand, SQSClient, type SendMessageBatchCommandInput } from '@aws-sdk/client-sqs';
import { coalescingDocumentClient } from '../../src/adapters/dynamo/coalescing-client.js';
import { coalescingSqsClient } from '../../src/adapters/sqs/coalescing-sqs-client.js';
import { batchGetAll, batchPutAll } from '../../src/adapters/dynamo/batch.js';

const KEYS: Record<string, string[]> = { Inbox: ['pk', 'sk'], Idem: ['id'] };
const keyNamesOf = (table: string) => KEYS[table];

function dynamo() {
  const raw = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }));
  const mock = mockClient(raw);
  return { raw, mock, client: coalescingDocumentClient(raw, keyNamesOf) };
}
const put = (pk: string, sk: string, extra: Record<string, unknown> = {}) => ({ PutRequest: { Item: { pk, sk, ...extra } } });
const writeInputs = (mock: ReturnType<typeof mockClient>) => mock.commandCalls(BatchWriteCommand).map((call) => call.args[0].input as BatchWriteCommandInput);
const getInputs = (mock: ReturnType<typeof mockClient>) => mock.commandCalls(BatchGetCommand).map((call) => call.args[0].input as BatchGetCommandInput);
const sortKeysOf = (input: BatchWriteCommandInput) => (input.RequestItems?.Inbox ?? []).map((request) => request.PutRequest?.Item?.sk ?? request.DeleteRequest?.Key?.sk);

const mocks: ReturnType<typeof mockClient>[] = [];
afterEach(() => {
  for (const mock of mocks.splice(0)) mock.restore();
});

describe('coalescing BatchWriteItem', () => {
  it('sends the writes of concurrent callers as shared requests of at most 25, in the order asked', async () => {
    const { mock, client } = dynamo();
    mocks.push(mock);
    mock.on(BatchWriteCommand).resolves({ UnprocessedItems: {} });
    const callers = [0, 1, 2].map((caller) => Array.from({ length: 10 }, (_, index) => put(`U#${caller}`, `N#${index}`)));
    const outputs = await Promise.all(callers.map((requests) => client.send(new BatchWriteCommand({ RequestItems: { Inbox: requests } }))));
    const inputs = writeInputs(mock);
    expect(inputs.map((input) => input.RequestItems!.Inbox!.length)).toEqual([25, 5]);
    expect(inputs.flatMap((input) => input.RequestItems!.Inbox!)).toEqual(callers.flat());
    for (const output of outputs) expect(output.UnprocessedItems).toEqual({});
  });

  it('never puts one key twice in a request: the second write of a key goes out after the first one was answered', async () => {
    const { mock, client } = dynamo();
    mocks.push(mock);
    const answered: string[] = [];
    mock.on(BatchWriteCommand).callsFake(async (input: BatchWriteCommandInput) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      answered.push(sortKeysOf(input).join(','));
      return { UnprocessedItems: {} };
    });
    const first = client.send(new BatchWriteCommand({ RequestItems: { Inbox: [put('U#1', 'N#1', { v: 1 }), put('U#1', 'N#2')] } }));
    const second = client.send(new BatchWriteCommand({ RequestItems: { Inbox: [put('U#1', 'N#1', { v: 2 }), put('U#1', 'N#3')] } }));
    await Promise.all([first, second]);
    const inputs = writeInputs(mock);
    expect(inputs.map(sortKeysOf)).toEqual([['N#1', 'N#2', 'N#3'], ['N#1']]);
    expect(inputs[1]!.RequestItems!.Inbox![0]!.PutRequest!.Item!.v).toBe(2);
    expect(answered).toEqual(['N#1,N#2,N#3', 'N#1']);
  });

  it('gives each caller back exactly its own unprocessed items', async () => {
    const { mock, client } = dynamo();
    mocks.push(mock);
    mock.on(BatchWriteCommand).callsFake(async (input: BatchWriteCommandInput) => ({ UnprocessedItems: { Inbox: input.RequestItems!.Inbox!.filter((request) => request.PutRequest!.Item!.sk === 'N#b2') } }));
    const [a, b] = await Promise.all([
      client.send(new BatchWriteCommand({ RequestItems: { Inbox: [put('U#a', 'N#a1')] } })),
      client.send(new BatchWriteCommand({ RequestItems: { Inbox: [put('U#b', 'N#b1'), put('U#b', 'N#b2')] } })),
    ]);
    expect(writeInputs(mock)).toHaveLength(1);
    expect(a.UnprocessedItems).toEqual({});
    expect(b.UnprocessedItems).toEqual({ Inbox: [put('U#b', 'N#b2')] });
  });

  it('fails every caller of a request that failed as a whole, and only them', async () => {
    const { mock, client } = dynamo();
    mocks.push(mock);
    const boom = Object.assign(new Error('internal'), { name: 'InternalServerError' });
    mock.on(BatchWriteCommand).callsFake(async (input: BatchWriteCommandInput) => {
      if (sortKeysOf(input).includes('N#x')) throw boom;
      return { UnprocessedItems: {} };
    });
    // 30 writes: the first request (25) holds both callers' N#x, the second (5) only the third caller's.
    const outcomes = await Promise.allSettled([
      client.send(new BatchWriteCommand({ RequestItems: { Inbox: [put('U#1', 'N#x'), ...Array.from({ length: 20 }, (_, index) => put('U#1', `N#${index}`))] } })),
      client.send(new BatchWriteCommand({ RequestItems: { Inbox: [put('U#2', 'N#x'), put('U#2', 'N#y')] } })),
      client.send(new BatchWriteCommand({ RequestItems: { Inbox: Array.from({ length: 7 }, (_, index) => put('U#3', `N#${index}`)) } })),
    ]);
    expect(writeInputs(mock).map((input) => input.RequestItems!.Inbox!.length)).toEqual([25, 5]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected', 'rejected']);
    // The third caller's writes span both requests: the failed one fails it too.
    expect((outcomes[0] as PromiseRejectedResult).reason).toBe(boom);
    expect((outcomes[1] as PromiseRejectedResult).reason).toBe(boom);
  });

  it('a caller alone in its failed request fails; the others get their answers', async () => {
    const { mock, client } = dynamo();
    mocks.push(mock);
    mock.on(BatchWriteCommand).callsFake(async (input: BatchWriteCommandInput) => {
      if (sortKeysOf(input).length === 1 && sortKeysOf(input)[0] === 'N#1') throw new Error('second round failed');
      return { UnprocessedItems: {} };
    });
    // The same key twice: the second caller's write goes alone in a second request, which fails.
    const outcomes = await Promise.allSettled([
      client.send(new BatchWriteCommand({ RequestItems: { Inbox: [put('U#1', 'N#1'), put('U#1', 'N#2')] } })),
      client.send(new BatchWriteCommand({ RequestItems: { Inbox: [put('U#1', 'N#1')] } })),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected']);
  });

  it('sends unchanged what it cannot share: an unknown table, a caller naming one key twice, options, more than 25', async () => {
    const { mock, client } = dynamo();
    mocks.push(mock);
    mock.on(BatchWriteCommand).resolves({ UnprocessedItems: {} });
    const unknownTable = { RequestItems: { Other: [put('U#1', 'N#1')] } };
    const twice = { RequestItems: { Inbox: [put('U#1', 'N#1'), put('U#1', 'N#1')] } };
    const withOption = { RequestItems: { Inbox: [put('U#1', 'N#2')] }, ReturnConsumedCapacity: 'TOTAL' as const };
    const tooMany = { RequestItems: { Inbox: Array.from({ length: 26 }, (_, index) => put('U#1', `N#${index}`)) } };
    await Promise.all([unknownTable, twice, withOption, tooMany].map((input) => client.send(new BatchWriteCommand(input))));
    expect(writeInputs(mock)).toEqual(expect.arrayContaining([unknownTable, twice, withOption, tooMany]));
    expect(writeInputs(mock)).toHaveLength(4);
  });

  it('batch.ts retries a caller\'s unprocessed items through the coalescer until all are written', async () => {
    const { mock, client } = dynamo();
    mocks.push(mock);
    const stored = new Set<string>();
    let calls = 0;
    mock.on(BatchWriteCommand).callsFake(async (input: BatchWriteCommandInput) => {
      calls += 1;
      // Every other item of each call is left unprocessed.
      const requests = input.RequestItems!.Inbox!;
      const unprocessed = requests.filter((_, index) => index % 2 === 1);
      for (const request of requests.filter((_, index) => index % 2 === 0)) stored.add(`${request.PutRequest!.Item!.pk}/${request.PutRequest!.Item!.sk}`);
      return { UnprocessedItems: unprocessed.length > 0 ? { Inbox: unprocessed } : {} } satisfies Partial<BatchWriteCommandOutput>;
    });
    const noWait = { sleep: async () => undefined };
    await Promise.all([1, 2, 3].map((caller) => batchPutAll(client, 'Inbox', Array.from({ length: 8 }, (_, index) => ({ pk: `U#${caller}`, sk: `N#${index}` })), noWait)));
    expect(stored.size).toBe(24);
    expect(calls).toBeLessThan(8);
  });
});

describe('coalescing BatchGetItem', () => {
  it('reads a key asked by several callers once, gives each its own copy, and splits at 100 keys', async () => {
    const { mock, client } = dynamo();
    mocks.push(mock);
    mock.on(BatchGetCommand).callsFake(async (input: BatchGetCommandInput) => ({
      Responses: Object.fromEntries(Object.entries(input.RequestItems!).map(([table, entry]) => [table, entry.Keys!.filter((key) => key.id !== 'absent').map((key) => ({ ...key, found: true }))])),
      UnprocessedKeys: {},
    }));
    const shared = { id: 'shared' };
    const many = Array.from({ length: 99 }, (_, index) => ({ id: `k${index}` }));
    const [a, b, c] = await Promise.all([
      client.send(new BatchGetCommand({ RequestItems: { Idem: { Keys: [shared, { id: 'absent' }] } } })),
      client.send(new BatchGetCommand({ RequestItems: { Idem: { Keys: [shared] }, Inbox: { Keys: [{ pk: 'U#1', sk: 'N#1' }] } } })),
      client.send(new BatchGetCommand({ RequestItems: { Idem: { Keys: many } } })),
    ]);
    const inputs = getInputs(mock);
    const sent = inputs.flatMap((input) => Object.values(input.RequestItems!).flatMap((entry) => entry.Keys!));
    expect(sent.filter((key) => key.id === 'shared')).toHaveLength(1);
    expect(inputs.map((input) => Object.values(input.RequestItems!).reduce((sum, entry) => sum + entry.Keys!.length, 0))).toEqual([100, 2]);
    expect(a.Responses).toEqual({ Idem: [{ id: 'shared', found: true }] });
    expect(b.Responses).toEqual({ Idem: [{ id: 'shared', found: true }], Inbox: [{ pk: 'U#1', sk: 'N#1', found: true }] });
    expect(a.Responses!.Idem![0]).not.toBe(b.Responses!.Idem![0]);
    expect(c.Responses!.Idem).toHaveLength(99);
  });

  it('gives each caller its own unprocessed keys, keeps strongly consistent reads apart, and fails the callers of a failed request', async () => {
    const { mock, client } = dynamo();
    mocks.push(mock);
    mock.on(BatchGetCommand).callsFake(async (input: BatchGetCommandInput) => {
      const entry = input.RequestItems!.Idem!;
      if (entry.Keys!.some((key) => key.id === 'poison')) throw new Error('request failed');
      return { Responses: { Idem: entry.Keys!.filter((key) => key.id !== 'slow').map((key) => ({ ...key })) }, UnprocessedKeys: entry.Keys!.some((key) => key.id === 'slow') ? { Idem: { Keys: [{ id: 'slow' }], ...(entry.ConsistentRead ? { ConsistentRead: true } : {}) } } : {} };
    });
    const [a, b, c] = await Promise.allSettled([
      client.send(new BatchGetCommand({ RequestItems: { Idem: { Keys: [{ id: 'fast' }] } } })),
      client.send(new BatchGetCommand({ RequestItems: { Idem: { Keys: [{ id: 'slow' }] } } })),
      client.send(new BatchGetCommand({ RequestItems: { Idem: { Keys: [{ id: 'poison' }], ConsistentRead: true } } })),
    ]);
    expect(getInputs(mock)).toHaveLength(2);
    expect(a).toMatchObject({ status: 'fulfilled', value: { Responses: { Idem: [{ id: 'fast' }] }, UnprocessedKeys: {} } });
    expect(b).toMatchObject({ status: 'fulfilled', value: { Responses: { Idem: [] }, UnprocessedKeys: { Idem: { Keys: [{ id: 'slow' }] } } } });
    expect(c).toMatchObject({ status: 'rejected', reason: { message: 'request failed' } });
  });

  it('batchGetAll of concurrent callers: one request, each caller its own items', async () => {
    const { mock, client } = dynamo();
    mocks.push(mock);
    mock.on(BatchGetCommand).callsFake(async (input: BatchGetCommandInput) => ({ Responses: { Idem: input.RequestItems!.Idem!.Keys!.map((key) => ({ ...key })) } }));
    const results = await Promise.all(['a', 'b', 'c'].map((caller) => batchGetAll(client, 'Idem', [{ id: `${caller}1` }, { id: `${caller}2` }])));
    expect(getInputs(mock)).toHaveLength(1);
    expect(results.map((items) => items.map((item) => item.id))).toEqual([['a1', 'a2'], ['b1', 'b2'], ['c1', 'c2']]);
  });

  it('keeps calls of different scopes apart', async () => {
    const raw = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }));
    const mock = mockClient(raw);
    mocks.push(mock);
    mock.on(BatchGetCommand).resolves({ Responses: {} });
    let scope = 'fanout';
    const client = coalescingDocumentClient(raw, keyNamesOf, () => scope);
    const first = client.send(new BatchGetCommand({ RequestItems: { Idem: { Keys: [{ id: '1' }] } } }));
    scope = 'delivery';
    const second = client.send(new BatchGetCommand({ RequestItems: { Idem: { Keys: [{ id: '2' }] } } }));
    await Promise.all([first, second]);
    expect(getInputs(mock)).toHaveLength(2);
  });
});

describe('coalescing SendMessageBatch', () => {
  function sqs() {
    const raw = new SQSClient({ region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
    const mock = mockClient(raw);
    mocks.push(mock);
    return { mock, client: coalescingSqsClient(raw) };
  }
  const entries = (prefix: string, count: number, bytes = 10) => Array.from({ length: count }, (_, index) => ({ Id: String(index), MessageBody: `${prefix}${index}`.padEnd(bytes, '.') }));
  const sendInputs = (mock: ReturnType<typeof mockClient>) => mock.commandCalls(SendMessageBatchCommand).map((call) => call.args[0].input as SendMessageBatchCommandInput);

  it('shares requests per queue (10 entries, ids unique per request) and gives each caller its own ids and failures', async () => {
    const { mock, client } = sqs();
    mock.on(SendMessageBatchCommand).callsFake(async (input: SendMessageBatchCommandInput) => ({
      Successful: input.Entries!.filter((entry) => !entry.MessageBody!.startsWith('b1')).map((entry) => ({ Id: entry.Id, MessageId: `m-${entry.MessageBody}`, MD5OfMessageBody: 'x' })),
      Failed: input.Entries!.filter((entry) => entry.MessageBody!.startsWith('b1')).map((entry) => ({ Id: entry.Id, Code: 'InternalError', SenderFault: false })),
    }));
    const [a, b, c, other] = await Promise.all([
      client.send(new SendMessageBatchCommand({ QueueUrl: 'q1', Entries: entries('a', 4) })),
      client.send(new SendMessageBatchCommand({ QueueUrl: 'q1', Entries: entries('b', 4) })),
      client.send(new SendMessageBatchCommand({ QueueUrl: 'q1', Entries: entries('c', 4) })),
      client.send(new SendMessageBatchCommand({ QueueUrl: 'q2', Entries: entries('d', 1) })),
    ]);
    const inputs = sendInputs(mock);
    expect(inputs.map((input) => [input.QueueUrl, input.Entries!.length])).toEqual([['q1', 10], ['q1', 2], ['q2', 1]]);
    for (const input of inputs) expect(new Set(input.Entries!.map((entry) => entry.Id)).size).toBe(input.Entries!.length);
    expect(a.Successful!.map((entry) => [entry.Id, entry.MessageId])).toEqual([0, 1, 2, 3].map((index) => [String(index), `m-a${index}`.padEnd(12, '.')]));
    expect(b.Failed).toEqual([{ Id: '1', Code: 'InternalError', SenderFault: false }]);
    expect(b.Successful!.map((entry) => entry.Id)).toEqual(['0', '2', '3']);
    expect(c.Failed).toEqual([]);
    expect(other.Successful).toHaveLength(1);
  });

  it('keeps a request under 256 KiB, and fails the callers of a request that failed as a whole', async () => {
    const { mock, client } = sqs();
    mock.on(SendMessageBatchCommand).callsFake(async (input: SendMessageBatchCommandInput) => {
      if (input.Entries!.some((entry) => entry.MessageBody!.startsWith('z'))) throw new Error('queue gone');
      return { Successful: input.Entries!.map((entry) => ({ Id: entry.Id, MessageId: 'm', MD5OfMessageBody: 'x' })) };
    });
    const outcomes = await Promise.allSettled([
      client.send(new SendMessageBatchCommand({ QueueUrl: 'q', Entries: entries('a', 2, 100 * 1024) })),
      client.send(new SendMessageBatchCommand({ QueueUrl: 'q', Entries: entries('z', 1, 100 * 1024) })),
    ]);
    expect(sendInputs(mock).map((input) => input.Entries!.map((entry) => entry.MessageBody![0]))).toEqual([['a', 'a'], ['z']]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected']);
  });

  it('sends unchanged a FIFO queue\'s batch and a batch naming an id twice', async () => {
    const { mock, client } = sqs();
    mock.on(SendMessageBatchCommand).resolves({ Successful: [] });
    const fifo = { QueueUrl: 'q.fifo', Entries: [{ Id: '0', MessageBody: 'x', MessageGroupId: 'g' }] };
    const twice = { QueueUrl: 'q', Entries: [{ Id: '0', MessageBody: 'x' }, { Id: '0', MessageBody: 'y' }] };
    await Promise.all([fifo, twice].map((input) => client.send(new SendMessageBatchCommand(input))));
    expect(sendInputs(mock)).toEqual([fifo, twice]);
  });
});
