/** Query result pages in order. Breaking out of `for await` sends no further request. */
import { QueryCommand, type DynamoDBDocumentClient, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';

export type Item = Record<string, unknown>;

export async function* queryPages(client: DynamoDBDocumentClient, input: QueryCommandInput): AsyncGenerator<Item[]> {
  let exclusiveStartKey: Item | undefined;
  do {
    const output = await client.send(new QueryCommand({ ...input, ExclusiveStartKey: exclusiveStartKey }));
    yield output.Items ?? [];
    exclusiveStartKey = output.LastEvaluatedKey;
  } while (exclusiveStartKey !== undefined);
}
