/** ReadMarks table: the READMARK item (read and seen marks) and READ#<id> single-read exceptions. */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys, READ_MARK_SK } from '../../core/keys.js';
import { queryPages } from './query-pages.js';
import type { ReadStateStore, UserRef } from '../../core/ports/inbox.js';
import type { ReadState } from '../../core/read-state.js';

/** Exceptions read per query page; a user rarely has more above the mark. */
const EXCEPTIONS_PAGE = 200;

type MarkName = 'read' | 'seen';

export class ReadStateRepository implements ReadStateStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /**
   * getReadState: one descending query over [READ#, READMARK] returns the marks first, then the
   * newest exceptions; paging stops at the first exception at or below the read mark.
   */
  async getReadState(user: UserRef): Promise<ReadState> {
    const { pk } = keys.readMark(user.tenantId, user.userId);
    const state = { readMark: null as string | null, readAt: null as string | null, seenMark: null as string | null, seenAt: null as string | null };
    const exceptions = new Set<string>();
    let reachedMark = false;
    const pages = queryPages(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': pk, ':from': keys.readStateRange.from, ':to': keys.readStateRange.to },
      ScanIndexForward: false,
      Limit: EXCEPTIONS_PAGE,
    });
    for await (const page of pages) {
      for (const item of page) {
        if (item.sk === READ_MARK_SK) {
          state.readMark = (item.readMark as string | undefined) ?? null;
          state.readAt = (item.readAt as string | undefined) ?? null;
          state.seenMark = (item.seenMark as string | undefined) ?? null;
          state.seenAt = (item.seenAt as string | undefined) ?? null;
          continue;
        }
        const id = keys.notificationIdFromReadException(item.sk as string);
        if (id === undefined) continue;
        if (state.readMark !== null && id <= state.readMark) {
          reachedMark = true;
          break;
        }
        exceptions.add(id);
      }
      if (reachedMark) break;
    }
    return { ...state, readExceptions: exceptions };
  }

  /** advanceReadMark: one UpdateItem, guarded so the mark only moves forward. */
  async advanceReadMark(user: UserRef, mark: string, atIso: string): Promise<{ readAt: string }> {
    return { readAt: await this.advance('read', user, mark, atIso) };
  }

  /** advanceSeenMark: one UpdateItem, guarded so the mark only moves forward. */
  async advanceSeenMark(user: UserRef, mark: string, atIso: string): Promise<{ seenAt: string }> {
    return { seenAt: await this.advance('seen', user, mark, atIso) };
  }

  private async advance(name: MarkName, user: UserRef, mark: string, atIso: string): Promise<string> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.readMark(user.tenantId, user.userId),
          UpdateExpression: `SET ${name}Mark = :mark, ${name}At = :at`,
          ConditionExpression: `attribute_not_exists(${name}Mark) OR ${name}Mark < :mark`,
          ExpressionAttributeValues: { ':mark': mark, ':at': atIso },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return atIso;
    } catch (error) {
      // The mark is already ahead (another device, clock skew): nothing to do, same single request.
      if (error instanceof ConditionalCheckFailedException) {
        const existing = error.Item?.[`${name}At`]?.S;
        if (existing !== undefined) return existing;
        // A store without ReturnValuesOnConditionCheckFailure (dynalite): read the stored time
        // rather than answer a time that was not written.
        return (await this.storedMarkTime(name, user)) ?? atIso;
      }
      throw error;
    }
  }

  private async storedMarkTime(name: MarkName, user: UserRef): Promise<string | undefined> {
    const output = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: keys.readMark(user.tenantId, user.userId), ConsistentRead: true }),
    );
    return output.Item?.[`${name}At`] as string | undefined;
  }

  /** recordSingleRead: one PutItem of READ#<id> with a TTL (harmless if the id is below the mark). */
  async recordSingleRead(user: UserRef, id: string, expiresAtEpochSeconds: number): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...keys.readException(user.tenantId, user.userId, id), expiresAt: expiresAtEpochSeconds },
      }),
    );
  }
}
