/** Shared bench plumbing: dynalite in-process with every request of the document client metered. */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../src/adapters/dynamo/document-client.js';
import { RequestMeter } from '../src/adapters/dynamo/request-meter.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION, startEmbeddedDynamo, type EmbeddedDynamo } from '../src/local/embedded-dynamo.js';

export interface MeteredDynamo {
  dynamo: EmbeddedDynamo;
  client: DynamoDBDocumentClient;
  meter: RequestMeter;
}

export async function startMeteredDynamo(): Promise<MeteredDynamo> {
  const dynamo = await startEmbeddedDynamo();
  const client = createDocumentClient({ endpoint: dynamo.endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  const meter = new RequestMeter();
  meter.attach(client);
  return { dynamo, client, meter };
}
