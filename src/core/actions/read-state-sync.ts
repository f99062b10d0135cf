/**
 * Read-state sync across a user's devices: after read-all, seen-all or a single read, every
 * connection of the user receives a `read_state` message with the new marks and counts.
 */
import type { ConnectionDirectory, ConnectionPusher } from '../ports/live.js';
import { pushToUserConnections } from '../live/connection-push.js';
import { readStatePayload } from '../live/live-messages.js';
import type { ReadStateChange, ReadStateListener, ReadStateStore } from '../ports/inbox.js';
import type { Counts } from '../model/read-state.js';
import type { UserRef } from '../model/user.js';

export interface ReadStateSyncDeps {
  directory: Pick<ConnectionDirectory, 'connectionsOf' | 'removeConnection'>;
  pusher: ConnectionPusher;
  readState: Pick<ReadStateStore, 'readWindow'>;
  counts: { counts(user: UserRef): Promise<Counts> };
}

export class ReadStateSync implements ReadStateListener {
  constructor(private readonly deps: ReadStateSyncDeps) {}

  /** One presence lookup; state and counts are read only when the user has a live connection. */
  async readStateChanged(user: UserRef, change: ReadStateChange = {}): Promise<void> {
    await pushToUserConnections(
      this.deps,
      user,
      async () => {
        const [window, counts] = await Promise.all([this.deps.readState.readWindow(user, undefined, 0), this.deps.counts.counts(user)]);
        return readStatePayload(window.state, counts, change);
      },
      'read_state',
    );
  }
}
