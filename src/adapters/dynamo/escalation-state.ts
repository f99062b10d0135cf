/**
 * The state an escalation checks at fire time (`EscalationStateReader`): in ONE BatchGetItem over two
 * tables, the user's marks item and the notifications' exceptions (ReadMarks) and the retraction
 * records of their events (Inbox, `T#<tenant>#RETRACTIONS`, keyed by the arrival the ids carry). The
 * inbox itself is never read: the cost is the same for 10 notifications or 100,000.
 * Eventually consistent (half the read units): a change made within the last second may be missed.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { EscalationCheck, EscalationStateReader } from '../../core/channels/escalation.js';
import { timeOfId } from '../../core/model/ids.js';
import { keys } from '../../core/model/keys.js';
import type { ReadState } from '../../core/model/read-state.js';
import type { UserRef } from '../../core/model/user.js';
import { batchGetTables, type TableItemKey } from './batch.js';
import { readStateOfItems } from './read-state-repository.js';

export class DynamoEscalationState implements EscalationStateReader {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: { inbox: string; readMarks: string },
  ) {}

  /** escalationState: BatchGetItem of READMARK, READEX#<id> per id and each event's retraction key (100 keys per request). */
  async escalationState(user: UserRef, checks: readonly EscalationCheck[]): Promise<{ state: ReadState; retracted: ReadonlySet<string> }> {
    const { tenantId, userId } = user;
    const retractionKeys = new Map<string, { key: TableItemKey; ids: string[] }>();
    for (const check of checks) {
      const key = keys.retraction(tenantId, check.type, check.eventId, timeOfId(check.notificationId));
      const id = `${key.pk}\u0000${key.sk}`;
      const entry = retractionKeys.get(id) ?? { key: { table: this.tables.inbox, key }, ids: [] };
      entry.ids.push(check.notificationId);
      retractionKeys.set(id, entry);
    }
    const requests: TableItemKey[] = [
      { table: this.tables.readMarks, key: keys.readMark(tenantId, userId) },
      ...[...new Set(checks.map((check) => check.notificationId))].map((id) => ({ table: this.tables.readMarks, key: keys.itemState(tenantId, userId, id) })),
      ...[...retractionKeys.values()].map((entry) => entry.key),
    ];
    const found = await batchGetTables(this.client, requests);
    const retracted = new Set<string>();
    for (const item of found.get(this.tables.inbox) ?? []) {
      for (const id of retractionKeys.get(`${String(item.pk)}\u0000${String(item.sk)}`)?.ids ?? []) retracted.add(id);
    }
    return { state: readStateOfItems(found.get(this.tables.readMarks) ?? []), retracted };
  }
}
