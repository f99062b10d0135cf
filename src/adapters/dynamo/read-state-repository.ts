/**
 * ReadMarks table: the READMARK item (read, seen and archive marks), READEX#<id> per-item state
 * exceptions and READ#<id> single-read exceptions of a user.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys, READ_MARK_SK } from '../../core/model/keys.js';
import { batchPutAll } from './batch.js';
import { queryPages } from './query-pages.js';
import type { ItemStateChange, ReadStateStore } from '../../core/ports/inbox.js';
import type { ItemState, ReadState } from '../../core/model/read-state.js';
import type { UserRef } from '../../core/model/user.js';

/** Exceptions read per query page; a user rarely has more above the mark. */
const EXCEPTIONS_PAGE = 200;

type MarkName = 'read' | 'seen';

/** The attribute of READEX#<id> each change sets, and the one it removes (last change wins). */
const CHANGE_ATTRIBUTES: Record<ItemStateChange['kind'], { set: keyof ItemState; remove?: keyof ItemState }> = {
  unread: { set: 'unreadAt' },
  seen: { set: 'seenAt' },
  archive: { set: 'archivedAt', remove: 'unarchivedAt' },
  unarchive: { set: 'unarchivedAt', remove: 'archivedAt' },
  delete: { set: 'deletedAt' },
  snooze: { set: 'snoozedUntil' },
};

const ITEM_STATE_FIELDS = ['unreadAt', 'seenAt', 'archivedAt', 'unarchivedAt', 'deletedAt', 'snoozedUntil'] as const;

function itemStateOf(item: Record<string, unknown>): ItemState {
  const state: ItemState = {};
  if (typeof item.type === 'string') state.type = item.type;
  for (const field of ITEM_STATE_FIELDS) if (typeof item[field] === 'number') state[field] = item[field];
  return state;
}

export class ReadStateRepository implements ReadStateStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /**
   * getReadState: one descending query over [READ#, READMARK] returns the marks first, then every
   * READEX# item, then the newest single reads; paging stops at the first single read at or below
   * the read mark (below the archive mark and any unread exception once those exist, which need
   * the single reads' times).
   */
  async getReadState(user: UserRef): Promise<ReadState> {
    const { pk } = keys.readMark(user.tenantId, user.userId);
    const state = { readMark: null as string | null, readAt: null as string | null, seenMark: null as string | null, seenAt: null as string | null };
    const marks: Pick<ReadState, 'readMarkSetAt' | 'archiveMark' | 'archiveSetAt'> = {};
    const exceptions = new Set<string>();
    const times = new Map<string, number>();
    const itemStates = new Map<string, ItemState>();
    let stopAt: string | null | undefined;
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
          if (typeof item.readSetAt === 'number') marks.readMarkSetAt = item.readSetAt;
          if (typeof item.archiveSetAt === 'number') {
            marks.archiveSetAt = item.archiveSetAt;
            marks.archiveMark = typeof item.archiveMark === 'string' && item.archiveMark !== '' ? item.archiveMark : null;
          }
          continue;
        }
        const stateId = keys.notificationIdFromItemState(item.sk as string);
        if (stateId !== undefined) {
          itemStates.set(stateId, itemStateOf(item));
          continue;
        }
        const id = keys.notificationIdFromReadException(item.sk as string);
        if (id === undefined) continue;
        stopAt ??= singleReadsFloor(state.readMark, marks, itemStates);
        // Stop below the floor; at it only when no unread exception there needs the read's time.
        if (stopAt !== null && (id < stopAt || (id === stopAt && itemStates.get(id)?.unreadAt === undefined))) {
          reachedMark = true;
          break;
        }
        exceptions.add(id);
        if (typeof item.at === 'number') times.set(id, item.at);
      }
      if (reachedMark) break;
    }
    return {
      ...state,
      readExceptions: exceptions,
      ...marks,
      ...(times.size > 0 ? { readExceptionTimes: times } : {}),
      ...(itemStates.size > 0 ? { itemStates } : {}),
    };
  }

  /** advanceReadMark: one UpdateItem, guarded so the mark only moves forward (an equal mark re-reads what was marked unread). */
  async advanceReadMark(user: UserRef, mark: string, atIso: string, writtenAtMs?: number): Promise<{ readAt: string }> {
    return { readAt: await this.advance('read', user, mark, atIso, writtenAtMs) };
  }

  /** advanceSeenMark: one UpdateItem, guarded so the mark only moves forward. */
  async advanceSeenMark(user: UserRef, mark: string, atIso: string): Promise<{ seenAt: string }> {
    return { seenAt: await this.advance('seen', user, mark, atIso) };
  }

  private async advance(name: MarkName, user: UserRef, mark: string, atIso: string, writtenAtMs?: number): Promise<string> {
    const stamped = writtenAtMs !== undefined;
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.readMark(user.tenantId, user.userId),
          UpdateExpression: `SET ${name}Mark = :mark, ${name}At = :at${stamped ? `, ${name}SetAt = :setAt` : ''}`,
          ConditionExpression: `attribute_not_exists(${name}Mark) OR ${name}Mark ${stamped ? '<=' : '<'} :mark`,
          ExpressionAttributeValues: { ':mark': mark, ':at': atIso, ...(stamped ? { ':setAt': writtenAtMs } : {}) },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return atIso;
    } catch (error) {
      // The mark is already ahead (another device, clock skew): nothing to do, same single request.
      if (error instanceof ConditionalCheckFailedException) {
        // Except the read-all's time: unread exceptions older than it read again (a second write, only then).
        if (stamped) await this.stampReadAll(user, writtenAtMs);
        const existing = error.Item?.[`${name}At`]?.S;
        if (existing !== undefined) return existing;
        // A store without ReturnValuesOnConditionCheckFailure (dynalite): read the stored time
        // rather than answer a time that was not written.
        return (await this.storedMarkTime(name, user)) ?? atIso;
      }
      throw error;
    }
  }

  private async stampReadAll(user: UserRef, writtenAtMs: number): Promise<void> {
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.readMark(user.tenantId, user.userId),
        UpdateExpression: 'SET readSetAt = :setAt',
        ConditionExpression: 'attribute_not_exists(readSetAt) OR readSetAt < :setAt',
        ExpressionAttributeValues: { ':setAt': writtenAtMs },
      }),
    ).catch((error: unknown) => {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    });
  }

  private async storedMarkTime(name: MarkName, user: UserRef): Promise<string | undefined> {
    const output = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: keys.readMark(user.tenantId, user.userId), ConsistentRead: true }),
    );
    return output.Item?.[`${name}At`] as string | undefined;
  }

  /** recordSingleRead: one PutItem of READ#<id> with a TTL (harmless if the id is below the mark). */
  async recordSingleRead(user: UserRef, id: string, expiresAtEpochSeconds: number, atMs?: number): Promise<void> {
    await this.client.send(new PutCommand({ TableName: this.tableName, Item: singleReadItem(user, id, expiresAtEpochSeconds, atMs) }));
  }

  /** recordSingleReads: the same items as recordSingleRead, in BatchWriteItems of 25 (the shared retry policy). */
  async recordSingleReads(user: UserRef, ids: readonly string[], expiresAtEpochSeconds: number, atMs?: number): Promise<void> {
    await batchPutAll(
      this.client,
      this.tableName,
      ids.map((id) => singleReadItem(user, id, expiresAtEpochSeconds, atMs)),
    );
  }

  /**
   * archiveAllRead: ONE UpdateItem of the mark item: the archive mark becomes the read mark as it is
   * now (copied inside DynamoDB, no read first) and `archiveSetAt` the time, which also archives
   * the single reads recorded before it. Never moves back in time.
   */
  async archiveAllRead(user: UserRef, atMs: number): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.readMark(user.tenantId, user.userId),
          UpdateExpression: 'SET archiveMark = if_not_exists(readMark, :none), archiveSetAt = :at',
          ConditionExpression: 'attribute_not_exists(archiveSetAt) OR archiveSetAt <= :at',
          ExpressionAttributeValues: { ':none': '', ':at': atMs },
        }),
      );
    } catch (error) {
      // A later archive-all from another device already covers this one.
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }

  /** changeItemState: one UpdateItem of READEX#<id> (sets the change's time, removes its opposite). */
  async changeItemState(user: UserRef, id: string, change: ItemStateChange, expiresAtEpochSeconds: number): Promise<void> {
    const { set, remove } = CHANGE_ATTRIBUTES[change.kind];
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.itemState(user.tenantId, user.userId, id),
        UpdateExpression: `SET #set = :value, #type = :type, expiresAt = :expiresAt${remove ? ' REMOVE #remove' : ''}`,
        ExpressionAttributeNames: { '#set': set, '#type': 'type', ...(remove ? { '#remove': remove } : {}) },
        ExpressionAttributeValues: { ':value': change.kind === 'snooze' ? change.untilMs : change.atMs, ':type': change.type, ':expiresAt': expiresAtEpochSeconds },
      }),
    );
  }
}

function singleReadItem(user: UserRef, id: string, expiresAtEpochSeconds: number, atMs: number | undefined): Record<string, unknown> {
  return { ...keys.readException(user.tenantId, user.userId, id), expiresAt: expiresAtEpochSeconds, ...(atMs !== undefined ? { at: atMs } : {}) };
}

/**
 * The id at or below which single reads no longer matter: the read mark, lowered to the archive
 * mark and to the lowest unread exception (their rules compare times); null = read them all.
 */
function singleReadsFloor(readMark: string | null, marks: Pick<ReadState, 'archiveMark' | 'archiveSetAt'>, itemStates: ReadonlyMap<string, ItemState>): string | null {
  let floor = readMark;
  if (marks.archiveSetAt !== undefined) floor = marks.archiveMark === undefined || marks.archiveMark === null || floor === null ? null : floor < marks.archiveMark ? floor : marks.archiveMark;
  for (const [id, item] of itemStates) if (item.unreadAt !== undefined && floor !== null && id < floor) floor = id;
  return floor;
}
