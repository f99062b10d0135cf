/**
 * Sync of per-item changes across a user's devices: after archive, unarchive, unread, seen,
 * delete, snooze, bulk changes or archive-all-read, every connection of the user receives an
 * `item_state` (or `archived_read`) message with the counts after the change.
 */
import { pushToUserConnections } from '../live/connection-push.js';
import { encodeLiveMessage } from '../live/live-messages.js';
import type { ConnectionDirectory, ConnectionPusher } from '../ports/live.js';
import type { InboxStateListener } from '../ports/inbox.js';
import type { Counts } from '../model/read-state.js';
import type { ItemAction, ServerMessage } from '../../contract/wire.js';
import type { UserRef } from '../model/user.js';

export interface InboxStateSyncDeps {
  directory: Pick<ConnectionDirectory, 'connectionsOf' | 'removeConnection'>;
  pusher: ConnectionPusher;
  counts: { counts(user: UserRef): Promise<Counts> };
}

export class InboxStateSync implements InboxStateListener {
  constructor(private readonly deps: InboxStateSyncDeps) {}

  async itemStateChanged(user: UserRef, action: ItemAction | 'snooze', ids: readonly string[]): Promise<void> {
    await this.push(user, (counts) => ({ type: 'item_state', action, ids: [...ids], ...counts }));
  }

  async archivedRead(user: UserRef, archivedAt: string): Promise<void> {
    await this.push(user, (counts) => ({ type: 'archived_read', archivedAt, ...counts }));
  }

  /** One presence lookup; counts are computed only when the user has a live connection. */
  private async push(user: UserRef, message: (counts: Counts) => ServerMessage): Promise<void> {
    await pushToUserConnections(this.deps, user, async () => encodeLiveMessage(message(await this.deps.counts.counts(user))), 'item_state');
  }
}
