/**
 * ReadMarks table, one partition per user (`T#<tenant>#U#<user>`): the marks item (`READMARK`: read,
 * seen and archive marks, the version counter, stale read-alls, ids marked unread below the read
 * mark, the counts floor), one `READEX#<id>` item per notification whose state the user changed one
 * by one (src/core/model/read-state.ts says what they mean) and one `READL#<id>` marker per own item
 * that landed late (src/core/model/counts-floor.ts). Reads take a range of exceptions, never all.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { COUNTS_FLOOR_ATTRIBUTE, ITEM_STATE_PREFIX, keys, READ_MARK_SK } from '../../core/model/keys.js';
import { ownCountsBase } from '../../core/model/counts-floor.js';
import { EMPTY_READ_STATE, withStaleReadAll, type ArchiveSnapshot, type ItemException, type ReadAllMark, type ReadState } from '../../core/model/read-state.js';
import type { UserRef } from '../../core/model/user.js';
import type { LateArrivalMarker, LateArrivalRecorder, ReadStateStore, ReadStateWindow } from '../../core/ports/inbox.js';
import { batchGetAll, batchPutAll } from './batch.js';
import { DynamoLateArrivalMarkers } from './late-arrival-markers.js';
import { queryPages, type Item } from './query-pages.js';

/** Marks item attribute of an id marked unread at or below the read mark (value: the marks' version then). */
export const UNREAD_BELOW_MARK_PREFIX = 'UB#';
/** Exceptions counts read with the marks item (above the read mark: usually few; the rest of a page would be wasted below it). */
const ABOVE_MARK_PAGE = 50;
/** `exceptionsFrom` of a window that read no exception: above every id (the caller reads the range it needs). */
const EXCEPTIONS_NONE_KNOWN = '~';
/** Tries of the stale read-all's optimistic write before giving up (each lost race rereads). */
const STALE_WRITE_ATTEMPTS = 5;

function staleOf(value: unknown): ReadAllMark[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((entry: unknown) => {
    const { v, m } = (entry ?? {}) as { v?: unknown; m?: unknown };
    return typeof v === 'number' && typeof m === 'string' ? [{ version: v, mark: m }] : [];
  });
}

/** The marks item as the rules read it; a 0.1.0 item (no version) has its read mark at version 0. */
export function marksOf(item: Item | undefined): Omit<ReadState, 'exceptions'> {
  if (!item) return EMPTY_READ_STATE;
  const str = (name: string) => (typeof item[name] === 'string' && item[name] !== '' ? (item[name] as string) : null);
  const num = (name: string) => (typeof item[name] === 'number' ? (item[name] as number) : 0);
  const unreadBelowMark = new Map<string, number>();
  for (const [name, value] of Object.entries(item)) if (name.startsWith(UNREAD_BELOW_MARK_PREFIX) && typeof value === 'number') unreadBelowMark.set(name.slice(UNREAD_BELOW_MARK_PREFIX.length), value);
  const archive: ArchiveSnapshot | undefined = typeof item.archVer === 'number' ? { version: item.archVer, readMark: str('archMark'), readVersion: num('archReadVer'), staleReadAlls: staleOf(item.archStale) } : undefined;
  return {
    readMark: str('readMark'),
    readAt: str('readAt'),
    seenMark: str('seenMark'),
    seenAt: str('seenAt'),
    version: num('ver'),
    readVersion: num('readVer'),
    staleReadAlls: staleOf(item.staleReadAlls),
    ...(archive ? { archive } : {}),
    ...(typeof item.archivedAt === 'string' ? { archivedAt: item.archivedAt } : {}),
    unreadBelowMark,
    ...(typeof item[COUNTS_FLOOR_ATTRIBUTE] === 'string' && item[COUNTS_FLOOR_ATTRIBUTE] !== '' ? { countsFloor: item[COUNTS_FLOOR_ATTRIBUTE] as string } : {}),
  };
}

export function exceptionOf(item: Item): ItemException | undefined {
  if (typeof item.basis !== 'number') return undefined;
  return {
    type: typeof item.type === 'string' ? item.type : '',
    ...(typeof item.src === 'string' ? { source: item.src } : {}),
    ...(typeof item.cbFrom === 'string' && typeof item.cbRoot === 'string' ? { comeback: { from: item.cbFrom, rootId: item.cbRoot, ...(typeof item.cbRootActor === 'string' ? { rootActor: item.cbRootActor } : {}) } } : {}),
    basis: item.basis,
    read: item.read === true,
    seen: item.seen === true,
    archived: item.archived === true,
    deleted: item.deleted === true,
    ...(typeof item.snoozedUntil === 'number' ? { snoozedUntil: item.snoozedUntil, ...(typeof item.comebackId === 'string' ? { comebackId: item.comebackId } : {}) } : {}),
    expiresAt: typeof item.expiresAt === 'number' ? item.expiresAt : 0,
  };
}

/** The read state of the items a BatchGetItem found in a user's ReadMarks partition: the marks item and the exceptions among them. */
export function readStateOfItems(items: readonly Item[]): ReadState {
  const exceptions = new Map<string, ItemException>();
  let marksItem: Item | undefined;
  for (const item of items) {
    if (item.sk === READ_MARK_SK) {
      marksItem = item;
      continue;
    }
    const id = keys.notificationIdFromItemState(item.sk as string);
    const exception = exceptionOf(item);
    if (id !== undefined && exception) exceptions.set(id, exception);
  }
  return { ...marksOf(marksItem), exceptions };
}

function exceptionItem(user: UserRef, id: string, exception: ItemException): Item {
  const { source, comeback, snoozedUntil, comebackId, ...rest } = exception;
  return {
    ...keys.itemState(user.tenantId, user.userId, id),
    ...rest,
    ...(source !== undefined ? { src: source } : {}),
    ...(comeback !== undefined ? { cbFrom: comeback.from, cbRoot: comeback.rootId, ...(comeback.rootActor !== undefined ? { cbRootActor: comeback.rootActor } : {}) } : {}),
    ...(snoozedUntil !== undefined ? { snoozedUntil } : {}),
    ...(comebackId !== undefined ? { comebackId } : {}),
  };
}

/** A marker at or below the read mark is moot (a read-all covers its item); it expires with it. */
function addLateArrival(lateArrivals: Set<string>, id: string, readMark: string | null): void {
  if (readMark === null || id > readMark) lateArrivals.add(id);
}

export class ReadStateRepository implements ReadStateStore, LateArrivalRecorder {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    /** Exceptions read with the marks item by counts before the ranged Query of the rest (tests make it small). */
    private readonly aboveMarkPage = ABOVE_MARK_PAGE,
  ) {}

  private pk(user: UserRef): string {
    return keys.readMark(user.tenantId, user.userId).pk;
  }

  /**
   * readWindow: without `before`, ONE descending Query of [READEX#, READMARK]: the marks item first,
   * then the newest exceptions (`limit`); with `before`, a GetItem of the marks item and a Query of the
   * exceptions below it, in parallel. The window is complete when the Query had no more to give.
   */
  async readWindow(user: UserRef, before: string | undefined, limit: number): Promise<ReadStateWindow> {
    const pk = this.pk(user);
    const query = (to: string) =>
      this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
          ExpressionAttributeValues: { ':pk': pk, ':from': ITEM_STATE_PREFIX, ':to': to },
          ScanIndexForward: false,
          Limit: limit + 1,
        }),
      );
    const [marksItem, output] =
      before === undefined
        ? await query(READ_MARK_SK).then((page) => [page.Items?.find((item) => item.sk === READ_MARK_SK), page] as const)
        : await Promise.all([this.getMarksItem(user), query(`${ITEM_STATE_PREFIX}${before}`)]);
    const exceptions = new Map<string, ItemException>();
    let lowest: string | undefined;
    for (const item of output.Items ?? []) {
      const id = keys.notificationIdFromItemState(item.sk as string);
      if (id === undefined || (before !== undefined && id >= before)) continue;
      const exception = exceptionOf(item);
      if (exception) exceptions.set(id, exception);
      lowest = id;
    }
    const state: ReadState = { ...marksOf(marksItem), exceptions };
    if (!output.LastEvaluatedKey) return { state };
    // A page that ended before any exception (late arrivals' markers sort between the marks and them) knows none.
    return { state, exceptionsFrom: lowest ?? EXCEPTIONS_NONE_KNOWN };
  }

  /** listExceptions: every READEX# item with an id in [from, before), newest first, all pages. */
  async listExceptions(user: UserRef, from: string, before: string | undefined): Promise<Map<string, ItemException>> {
    const exceptions = new Map<string, ItemException>();
    const input: QueryCommandInput = {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': this.pk(user), ':from': `${ITEM_STATE_PREFIX}${from}`, ':to': before === undefined ? `${ITEM_STATE_PREFIX}~` : `${ITEM_STATE_PREFIX}${before}` },
      ScanIndexForward: false,
    };
    for await (const page of queryPages(this.client, input)) {
      for (const item of page) {
        const id = keys.notificationIdFromItemState(item.sk as string);
        const exception = exceptionOf(item);
        if (id !== undefined && exception && (before === undefined || id < before)) exceptions.set(id, exception);
      }
    }
    return exceptions;
  }

  /**
   * readAboveMark: a descending Query of [READEX#, READMARK] of ABOVE_MARK_PAGE items: the marks item,
   * then the newest exceptions, down to the first at or below the read mark (what counts need; the
   * ids marked unread below it are named by the marks item). When more remain above the mark, ONE
   * ranged Query takes all of them (between the mark and the lowest read so far, no Limit: 1 MB, some
   * 5,000 exceptions, a request), so the requests do not grow with single reads since the last
   * read-all; only the read units do.
   */
  async readAboveMark(user: UserRef): Promise<ReadState> {
    const exceptions = new Map<string, ItemException>();
    const lateArrivals = new Set<string>();
    const output = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': this.pk(user), ':from': ITEM_STATE_PREFIX, ':to': READ_MARK_SK },
        ScanIndexForward: false,
        // The marks item, the late arrivals' markers (rare) and the newest exceptions.
        Limit: this.aboveMarkPage + 1,
      }),
    );
    const marksItem = output.Items?.find((item) => item.sk === READ_MARK_SK);
    const marks = marksOf(marksItem);
    // Exceptions below the counts floor are not needed: the floor says what they say (counts-floor.ts).
    const base = ownCountsBase(marks) ?? null;
    const above = (id: string) => base === null || id > base;
    const state = () => ({ ...marks, exceptions, ...(lateArrivals.size > 0 ? { lateArrivals } : {}) });
    let lowest: string | undefined;
    let lowestLate: string | undefined;
    for (const item of output.Items ?? []) {
      const late = keys.notificationIdFromLateArrival(item.sk as string);
      if (late !== undefined) {
        lowestLate = late;
        addLateArrival(lateArrivals, late, marks.readMark);
        continue;
      }
      const id = keys.notificationIdFromItemState(item.sk as string);
      if (id === undefined) continue;
      if (!above(id)) return state();
      const exception = exceptionOf(item);
      if (exception) exceptions.set(id, exception);
      lowest = id;
    }
    if (!output.LastEvaluatedKey) return state();
    // The page ended among the markers: the rest of those above the read mark (they sort by id).
    if (lowest === undefined && (lowestLate === undefined || marks.readMark === null || lowestLate > marks.readMark)) await this.moreLateArrivals(user, lowestLate, marks.readMark, lateArrivals);
    // The rest above the mark, by key range: nothing below the mark is read.
    for (const [id, exception] of await this.listExceptions(user, base ?? '', lowest)) if (above(id)) exceptions.set(id, exception);
    return state();
  }

  /** The late arrivals' markers below `below` (all when undefined) down to the read mark, all pages (rare: a redrive's worth since the last read-all). */
  private async moreLateArrivals(user: UserRef, below: string | undefined, readMark: string | null, lateArrivals: Set<string>): Promise<void> {
    const input: QueryCommandInput = {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': this.pk(user), ':from': keys.lateArrival(user.tenantId, user.userId, readMark ?? '').sk, ':to': keys.lateArrival(user.tenantId, user.userId, below ?? '~').sk },
      ScanIndexForward: false,
    };
    for await (const page of queryPages(this.client, input)) {
      for (const item of page) {
        const id = keys.notificationIdFromLateArrival(item.sk as string);
        if (id !== undefined && (below === undefined || id < below)) addLateArrival(lateArrivals, id, readMark);
      }
    }
  }

  /** getExceptions: BatchGetItem of READEX#<id>, 100 per call. */
  async getExceptions(user: UserRef, ids: readonly string[]): Promise<Map<string, ItemException>> {
    const exceptions = new Map<string, ItemException>();
    if (ids.length === 0) return exceptions;
    const items = await batchGetAll(this.client, this.tableName, [...new Set(ids)].map((id) => keys.itemState(user.tenantId, user.userId, id)));
    for (const item of items) {
      const id = keys.notificationIdFromItemState(item.sk as string);
      const exception = exceptionOf(item);
      if (id !== undefined && exception) exceptions.set(id, exception);
    }
    return exceptions;
  }

  private async getMarksItem(user: UserRef): Promise<Item | undefined> {
    const output = await this.client.send(new GetCommand({ TableName: this.tableName, Key: keys.readMark(user.tenantId, user.userId), ConsistentRead: true }));
    return output.Item;
  }

  /**
   * advanceReadMark: one UpdateItem guarded so the mark only moves forward (an equal mark reads again
   * what was marked unread at or below it): it takes the next version and drops the stale read-alls it
   * supersedes. A read-all below the mark (a device behind, rare) fails the guard, reads the item
   * and adds itself to the stale read-alls with one more write, guarded by the version it read.
   */
  async advanceReadMark(user: UserRef, mark: string, atIso: string): Promise<{ readAt: string }> {
    const key = keys.readMark(user.tenantId, user.userId);
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: key,
          UpdateExpression: 'SET readMark = :mark, readAt = :at, ver = if_not_exists(ver, :zero) + :one, readVer = if_not_exists(ver, :zero) + :one REMOVE staleReadAlls',
          ConditionExpression: 'attribute_not_exists(readMark) OR readMark <= :mark',
          ExpressionAttributeValues: { ':mark': mark, ':at': atIso, ':zero': 0, ':one': 1 },
        }),
      );
      return { readAt: atIso };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
    for (let attempt = 0; attempt < STALE_WRITE_ATTEMPTS; attempt += 1) {
      const stored = marksOf(await this.getMarksItem(user));
      if (stored.readMark === null || stored.readMark <= mark) return this.advanceReadMark(user, mark, atIso);
      const version = stored.version + 1;
      const stale = withStaleReadAll(stored.staleReadAlls, { version, mark });
      try {
        await this.client.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: key,
            UpdateExpression: 'SET ver = :version, staleReadAlls = :stale',
            ConditionExpression: stored.version === 0 ? 'attribute_not_exists(ver) OR ver = :zero' : 'ver = :previous',
            ExpressionAttributeValues: { ':version': version, ':stale': stale.map((entry) => ({ v: entry.version, m: entry.mark })), ...(stored.version === 0 ? { ':zero': 0 } : { ':previous': stored.version }) },
          }),
        );
        return { readAt: stored.readAt ?? atIso };
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    }
    throw new Error(`read-all of ${user.userId} lost ${STALE_WRITE_ATTEMPTS} races for the marks item`);
  }

  /** advanceSeenMark: one UpdateItem, guarded so the mark only moves forward; a late one answers the stored time. */
  async advanceSeenMark(user: UserRef, mark: string, atIso: string): Promise<{ seenAt: string }> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.readMark(user.tenantId, user.userId),
          UpdateExpression: 'SET seenMark = :mark, seenAt = :at',
          ConditionExpression: 'attribute_not_exists(seenMark) OR seenMark < :mark',
          ExpressionAttributeValues: { ':mark': mark, ':at': atIso },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { seenAt: atIso };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      const existing = error.Item?.seenAt?.S;
      if (existing !== undefined) return { seenAt: existing };
      // A store without ReturnValuesOnConditionCheckFailure (dynalite): read the stored time.
      const stored = await this.getMarksItem(user);
      return { seenAt: typeof stored?.seenAt === 'string' ? stored.seenAt : atIso };
    }
  }

  /**
   * archiveAllRead: ONE UpdateItem of the marks item: the archive snapshot takes the read-alls as they
   * are (copied inside DynamoDB, no read first) and the next version.
   */
  async archiveAllRead(user: UserRef, atIso: string): Promise<void> {
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.readMark(user.tenantId, user.userId),
        UpdateExpression:
          'SET archMark = if_not_exists(readMark, :none), archReadVer = if_not_exists(readVer, :zero), archStale = if_not_exists(staleReadAlls, :empty), archVer = if_not_exists(ver, :zero) + :one, ver = if_not_exists(ver, :zero) + :one, archivedAt = :at',
        ExpressionAttributeValues: { ':none': '', ':zero': 0, ':one': 1, ':empty': [], ':at': atIso },
      }),
    );
  }

  /** putExceptions: one PutItem of READEX#<id> for one exception, BatchWriteItems of 25 for several. */
  async putExceptions(user: UserRef, exceptions: ReadonlyMap<string, ItemException>): Promise<void> {
    const items = [...exceptions].map(([id, exception]) => exceptionItem(user, id, exception));
    if (items.length === 1) await this.client.send(new PutCommand({ TableName: this.tableName, Item: items[0] }));
    else if (items.length > 1) await batchPutAll(this.client, this.tableName, items);
  }

  /** advanceCountsFloor: one UpdateItem of the marks item, guarded by the floor it read (a lost race keeps the other count's floor). */
  async advanceCountsFloor(user: UserRef, from: string | null, to: string): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.readMark(user.tenantId, user.userId),
          UpdateExpression: 'SET #floor = :to',
          ConditionExpression: from === null ? 'attribute_not_exists(#floor)' : '#floor = :from',
          ExpressionAttributeNames: { '#floor': COUNTS_FLOOR_ATTRIBUTE },
          ExpressionAttributeValues: { ':to': to, ...(from === null ? {} : { ':from': from }) },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  /** recordLateArrivals: the fan-out's writer (late-arrival-markers.ts), here for the tests and tools that hold this repository. */
  recordLateArrivals(markers: readonly LateArrivalMarker[]): Promise<void> {
    return new DynamoLateArrivalMarkers(this.client, this.tableName).recordLateArrivals(markers);
  }

  /** recordUnreadBelowMark: one UpdateItem of the marks item naming the ids (`UB#<id>` = version), dropping `forget`. */
  async recordUnreadBelowMark(user: UserRef, ids: readonly string[], version: number, forget: readonly string[]): Promise<void> {
    const names: Record<string, string> = {};
    const sets = ids.map((id, index) => {
      names[`#u${index}`] = `${UNREAD_BELOW_MARK_PREFIX}${id}`;
      return `#u${index} = :version`;
    });
    const removes = forget.filter((id) => !ids.includes(id)).map((id, index) => {
      names[`#f${index}`] = `${UNREAD_BELOW_MARK_PREFIX}${id}`;
      return `#f${index}`;
    });
    if (sets.length === 0 && removes.length === 0) return;
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.readMark(user.tenantId, user.userId),
        UpdateExpression: [sets.length > 0 ? `SET ${sets.join(', ')}` : '', removes.length > 0 ? `REMOVE ${removes.join(', ')}` : ''].filter(Boolean).join(' '),
        ExpressionAttributeNames: names,
        ...(sets.length > 0 ? { ExpressionAttributeValues: { ':version': version } } : {}),
      }),
    );
  }
}
