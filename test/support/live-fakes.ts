/** In-memory fakes of the live-delivery ports, for unit tests of the core and the handlers. */
import type { ConnectionDirectory, ConnectionPusher, ConnectionTarget, DeliveryLedger, PostOutcome } from '../../src/core/ports/live.js';
import type { LiveMessage } from '../../src/core/live/live-messages.js';
import type { UserRef } from '../../src/core/model/user.js';

export class FakeDirectory implements ConnectionDirectory {
  readonly lookups: UserRef[][] = [];
  readonly removed: string[] = [];
  private readonly connections: ConnectionTarget[] = [];
  private readonly subscribers = new Map<string, ConnectionTarget[][]>();
  failLookups = false;

  connect(user: UserRef, ...connectionIds: string[]): this {
    for (const connectionId of connectionIds) this.connections.push({ ...user, connectionId });
    return this;
  }

  subscribe(actorId: string, pages: ConnectionTarget[][]): this {
    this.subscribers.set(actorId, pages);
    return this;
  }

  async connectionsOf(users: readonly UserRef[]): Promise<ConnectionTarget[]> {
    this.lookups.push([...users]);
    if (this.failLookups) throw new Error('lookup failed');
    return this.connections.filter((connection) => users.some((user) => user.tenantId === connection.tenantId && user.userId === connection.userId));
  }

  async *onlineSubscriberPages(_tenantId: string, actorId: string): AsyncIterable<ConnectionTarget[]> {
    for (const page of this.subscribers.get(actorId) ?? []) yield page;
  }

  async removeConnection(target: ConnectionTarget): Promise<void> {
    this.removed.push(target.connectionId);
  }
}

export class FakeLedger implements DeliveryLedger {
  readonly claimed = new Set<string>();
  readonly released: string[] = [];
  failClaims = false;

  async claim(notificationId: string, connectionId: string): Promise<boolean> {
    if (this.failClaims) throw new Error('throttled');
    const key = `${notificationId}/${connectionId}`;
    if (this.claimed.has(key)) return false;
    this.claimed.add(key);
    return true;
  }

  async release(notificationId: string, connectionId: string): Promise<void> {
    this.claimed.delete(`${notificationId}/${connectionId}`);
    this.released.push(`${notificationId}/${connectionId}`);
  }
}

export class FakePusher implements ConnectionPusher {
  readonly posts: { connectionId: string; message: LiveMessage }[] = [];
  readonly gone = new Set<string>();
  readonly failing = new Set<string>();

  async post(connectionId: string, payload: string): Promise<PostOutcome> {
    if (this.gone.has(connectionId)) return 'gone';
    if (this.failing.has(connectionId)) throw new Error('throttled by API Gateway');
    this.posts.push({ connectionId, message: JSON.parse(payload) as LiveMessage });
    return 'sent';
  }

  to(connectionId: string): LiveMessage[] {
    return this.posts.filter((post) => post.connectionId === connectionId).map((post) => post.message);
  }
}
