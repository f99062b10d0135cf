/**
 * Read-state sync across a user's devices: after read-all, seen-all or a single read, every
 * connection of the user receives a `read_state` message with the new marks and counts.
 */
import type { ConnectionDirectory, ConnectionPusher } from './ports/live.js';
import { postOrRemoveStale } from './connection-push.js';
import { readStatePayload } from './live-messages.js';
import type { ReadStateListener, ReadStateStore, UserRef } from './ports/inbox.js';
import type { Counts } from './read-state.js';

export interface ReadStateSyncDeps {
  directory: Pick<ConnectionDirectory, 'connectionsOf' | 'removeConnection'>;
  pusher: ConnectionPusher;
  readState: Pick<ReadStateStore, 'getReadState'>;
  counts: { counts(user: UserRef): Promise<Counts> };
}

export class ReadStateSync implements ReadStateListener {
  constructor(private readonly deps: ReadStateSyncDeps) {}

  /** One presence lookup; counts are computed only when the user has a live connection. */
  async readStateChanged(user: UserRef): Promise<void> {
    const connections = await this.deps.directory.connectionsOf([user]);
    if (connections.length === 0) return;
    const [state, counts] = await Promise.all([this.deps.readState.getReadState(user), this.deps.counts.counts(user)]);
    const payload = readStatePayload(state, counts);
    const failures: unknown[] = [];
    await Promise.all(
      connections.map(async (connection) => {
        try {
          await postOrRemoveStale(this.deps, connection, payload);
        } catch (error) {
          failures.push(error);
        }
      }),
    );
    if (failures.length > 0) throw new AggregateError(failures, `read_state push failed for ${failures.length} of ${connections.length} connections`);
  }
}
