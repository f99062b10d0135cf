/**
 * dynalite without a socket, for suites that send hundreds of thousands of requests (the model
 * suites): the SDK's request handler calls dynalite's own HTTP request listener in process, so every
 * request still goes through the SDK's serialization and dynalite's validation and storage (the real
 * DynamoDB wire protocol), only the TCP round trip and the signature's HMACs are left out
 * (dynalite checks that a signature is present, never its value). About 3x fewer milliseconds per
 * request than the embedded server over 127.0.0.1.
 */
import { EventEmitter } from 'node:events';
import { Readable } from 'node:stream';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import dynalite from 'dynalite';
import { createTableInput, LOCAL_CREDENTIALS, LOCAL_REGION } from '../../src/local/embedded-dynamo.js';
import { tableSpecs, type TableName, type TableSpec } from '../../src/table-specs.js';

/** The fields of the SDK's HttpRequest this handler reads. */
interface SdkHttpRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

type RequestListener = (request: unknown, response: unknown) => void;

/** An SDK HttpHandler that answers from dynalite's request listener in this process. */
function inProcessHandler(listener: RequestListener) {
  return {
    metadata: { handlerProtocol: 'http/1.1' },
    handle(request: SdkHttpRequest): Promise<{ response: { statusCode: number; headers: Record<string, string>; body: Readable } }> {
      return new Promise((resolve) => {
        const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name.toLowerCase(), value]));
        const incoming = Object.assign(new EventEmitter(), { headers, method: request.method, url: request.path });
        const answerHeaders: Record<string, string> = {};
        const outgoing = {
          statusCode: 200,
          contentType: '',
          setHeader(name: string, value: unknown) {
            answerHeaders[name.toLowerCase()] = String(value);
          },
          end(body?: string) {
            resolve({ response: { statusCode: outgoing.statusCode, headers: answerHeaders, body: Readable.from([Buffer.from(body ?? '')]) } });
          },
        };
        listener(incoming, outgoing);
        // The SDK hands a Uint8Array behind a proxy that warns on string members (`length` too): copy it by its bytes.
        const body = request.body;
        const bytes = body === undefined ? undefined : typeof body === 'string' ? Buffer.from(body) : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
        // As a socket would: the body arrives after the listener is attached.
        queueMicrotask(() => {
          if (bytes !== undefined && bytes.byteLength > 0) incoming.emit('data', bytes);
          incoming.emit('end');
        });
      });
    },
    updateHttpClientConfig() {},
    httpHandlerConfigs() {
      return {};
    },
    destroy() {},
  };
}

/** dynalite reads the Authorization header's shape only: a constant one stands in for the SigV4 HMACs. */
const presenceOnlySigner = {
  async sign<T extends { headers: Record<string, string> }>(request: T): Promise<T> {
    request.headers.authorization = 'AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=0';
    request.headers['x-amz-date'] = '20260101T000000Z';
    return request;
  },
};

export interface InProcessDynamo {
  /** A new base client on the same store (each client has its own middleware stack). */
  newClient(): DynamoDBClient;
  /** A document client over a new base client, with the project's marshalling options. */
  newDocumentClient(): { client: DynamoDBClient; documentClient: DynamoDBDocumentClient };
  /** Creates the tables of the specs under these names. */
  createTables(names: Record<TableName, string>): Promise<void>;
}

export function startInProcessDynamo(): InProcessDynamo {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  const listener = server.listeners('request')[0] as RequestListener;
  const newClient = () =>
    new DynamoDBClient({ endpoint: 'http://dynalite.in-process', region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, requestHandler: inProcessHandler(listener) as never, signer: presenceOnlySigner as never });
  return {
    newClient,
    newDocumentClient() {
      const client = newClient();
      return { client, documentClient: DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } }) };
    },
    async createTables(names) {
      const client = newClient();
      for (const [name, spec] of Object.entries(tableSpecs) as [TableName, TableSpec][]) {
        await client.send(new CreateTableCommand(createTableInput(spec, names[name])));
        // createTableMs 0 still answers CREATING first: wait for ACTIVE.
        while ((await client.send(new DescribeTableCommand({ TableName: names[name] }))).Table?.TableStatus !== 'ACTIVE') await new Promise((resolve) => setTimeout(resolve, 1));
      }
    },
  };
}
