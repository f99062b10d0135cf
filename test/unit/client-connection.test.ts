import { beforeEach, describe, expect, it } from 'vitest';
import { LiveConnection, type ConnectionStatus, type LiveConnectionOptions, type ServerMessage, type TokenSource } from '../../src/client/index.js';
import { FakeClock, FakeWebSocket, flush } from '../support/client-fakes.js';

const MINUTE = 60_000;

function aConnection(overrides: Partial<LiveConnectionOptions> = {}) {
  const clock = new FakeClock();
  const events = { opens: 0, messages: [] as ServerMessage[], statuses: [] as ConnectionStatus[], errors: [] as Error[] };
  const connection = new LiveConnection({
    url: 'ws://inbox.test',
    token: 'token-1',
    createSocket: (url) => new FakeWebSocket(url),
    clock,
    random: () => 0.5,
    onOpen: () => {
      events.opens += 1;
    },
    onMessage: (message) => events.messages.push(message),
    onStatus: (status) => events.statuses.push(status),
    onError: (error) => events.errors.push(error),
    ...overrides,
  });
  return { clock, connection, events };
}

describe('LiveConnection', () => {
  beforeEach(() => FakeWebSocket.reset());

  it('connects with the token in the URL and delivers messages but not pongs', async () => {
    // Prepare
    const { connection, events } = aConnection();

    // Act
    connection.start();
    await flush();
    const socket = FakeWebSocket.latest();
    socket.serverOpen();
    socket.serverSend({ type: 'pong' });
    socket.serverSend({ type: 'read_state', readAt: null, seenAt: null, unread: 1, unseen: 1 });

    // Assess
    expect(socket.token).toBe('token-1');
    expect(connection.status).toBe('open');
    expect(events.opens).toBe(1);
    expect(events.messages).toEqual([{ type: 'read_state', readAt: null, seenAt: null, unread: 1, unseen: 1 }]);
  });

  it('reconnects after a drop with exponential backoff and full jitter, and starts over once stable', async () => {
    // Prepare: random() = 0.5 -> half of each ceiling (500, 1000, 2000 ms)
    const { clock, connection } = aConnection();
    connection.start();
    await flush();
    FakeWebSocket.latest().serverOpen();

    // Act / Assess: three refused attempts in a row wait 250, 500, 1000 ms
    const waits: number[] = [];
    FakeWebSocket.latest().serverClose();
    for (let i = 0; i < 3; i += 1) {
      expect(connection.status).toBe('waiting');
      waits.push(clock.pendingDelays()[0]!);
      const count = FakeWebSocket.instances.length;
      await clock.advance(waits[waits.length - 1]!);
      expect(FakeWebSocket.instances.length).toBe(count + 1);
      FakeWebSocket.latest().serverClose();
    }
    expect(waits).toEqual([250, 500, 1000]);

    // A connection that stays open 10 s resets the backoff
    await clock.advance(clock.pendingDelays()[0]!);
    FakeWebSocket.latest().serverOpen();
    await clock.advance(10_000);
    FakeWebSocket.latest().serverClose();
    expect(clock.pendingDelays()[0]).toBe(250);
  });

  it('pings every 5 minutes, well inside the 10-minute idle timeout', async () => {
    // Prepare
    const { clock, connection } = aConnection();
    connection.start();
    await flush();
    const socket = FakeWebSocket.latest();
    socket.serverOpen();

    // Act
    await clock.advance(5 * MINUTE - 1);
    const beforeFirst = socket.sent.length;
    await clock.advance(1);
    socket.serverSend({ type: 'pong' });
    await clock.advance(5 * MINUTE);
    socket.serverSend({ type: 'pong' });

    // Assess
    expect(beforeFirst).toBe(0);
    expect(socket.sent).toEqual([{ action: 'ping' }, { action: 'ping' }]);
    expect(FakeWebSocket.instances).toHaveLength(1);
  });

  it('replaces a socket whose ping gets no pong (a laptop that slept keeps a dead socket)', async () => {
    // Prepare
    const { clock, connection } = aConnection();
    connection.start();
    await flush();
    const socket = FakeWebSocket.latest();
    socket.serverOpen();

    // Act: ping at 5 min, no pong for 10 s
    await clock.advance(5 * MINUTE + 10_000);

    // Assess
    expect(socket.closedByClient).toBeDefined();
    expect(connection.status).toBe('waiting');
    await clock.advance(clock.pendingDelays()[0]!);
    expect(FakeWebSocket.instances).toHaveLength(2);
  });

  it('probe() checks a socket at once (tab visible again, network back)', async () => {
    const { clock, connection } = aConnection();
    connection.start();
    await flush();
    const socket = FakeWebSocket.latest();
    socket.serverOpen();

    connection.probe();
    await clock.advance(10_000);

    expect(socket.sent).toEqual([{ action: 'ping' }]);
    expect(socket.closedByClient).toBeDefined();
  });

  it('reconnects on purpose before the 2-hour limit, without waiting for a backoff', async () => {
    // Prepare
    const { clock, connection, events } = aConnection();
    connection.start();
    await flush();
    const first = FakeWebSocket.latest();
    first.serverOpen();
    // The server answers every ping, so only the age limit ends this connection.
    first.send = (data: string) => {
      first.sent.push(JSON.parse(data));
      queueMicrotask(() => first.serverSend({ type: 'pong' }));
    };

    // Act
    await clock.advance(110 * MINUTE - 1);
    const beforeLimit = FakeWebSocket.instances.length;
    await clock.advance(1);

    // Assess
    expect(beforeLimit).toBe(1);
    expect(first.sent.length).toBe(21);
    expect(first.closedByClient?.reason).toBe('reconnect');
    expect(FakeWebSocket.instances).toHaveLength(2);
    FakeWebSocket.latest().serverOpen();
    expect(events.opens).toBe(2);
  });

  it('asks the token provider for a fresh token after a refused handshake', async () => {
    // Prepare
    const calls: boolean[] = [];
    const token: TokenSource = ({ forceRefresh }) => {
      calls.push(forceRefresh);
      return forceRefresh ? 'fresh' : 'stale';
    };
    const { clock, connection } = aConnection({ token });

    // Act
    connection.start();
    await flush();
    FakeWebSocket.latest().serverClose();
    await clock.advance(clock.pendingDelays()[0]!);

    // Assess
    expect(calls).toEqual([false, true]);
    expect(FakeWebSocket.latest().token).toBe('fresh');
  });

  it('setToken reconnects at once with the new token', async () => {
    const { connection } = aConnection();
    connection.start();
    await flush();
    const first = FakeWebSocket.latest();
    first.serverOpen();

    connection.setToken('token-2');
    await flush();

    expect(first.closedByClient).toBeDefined();
    expect(FakeWebSocket.latest().token).toBe('token-2');
  });

  it('stop() closes the socket and never reconnects', async () => {
    const { clock, connection } = aConnection();
    connection.start();
    await flush();
    FakeWebSocket.latest().serverOpen();

    connection.stop();
    await clock.advance(3 * 60 * MINUTE);

    expect(connection.status).toBe('stopped');
    expect(FakeWebSocket.instances).toHaveLength(1);
    expect(clock.pendingDelays()).toEqual([]);
  });

  it('abandons a connect that hangs', async () => {
    const { clock, connection } = aConnection();
    connection.start();
    await flush();

    await clock.advance(15_000);

    expect(FakeWebSocket.instances[0]!.closedByClient).toBeDefined();
    expect(connection.status).toBe('waiting');
  });
});
