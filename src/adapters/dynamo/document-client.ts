import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export interface DynamoClients {
  /** The base client, for libraries that take one (Powertools idempotency). */
  dynamoClient: DynamoDBClient;
  /** The document client over it, with the project's marshalling options. */
  documentClient: DynamoDBDocumentClient;
}

/** One pair per container; `endpoint` points it at dynalite or LocalStack. */
export function createDynamoClients(config: DynamoDBClientConfig = {}): DynamoClients {
  const dynamoClient = new DynamoDBClient(config);
  const documentClient = DynamoDBDocumentClient.from(dynamoClient, { marshallOptions: { removeUndefinedValues: true } });
  return { dynamoClient, documentClient };
}

/** One document client per container; `endpoint` points it at dynalite or LocalStack. */
export function createDocumentClient(config: DynamoDBClientConfig = {}): DynamoDBDocumentClient {
  return createDynamoClients(config).documentClient;
}
