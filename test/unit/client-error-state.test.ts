/**
 * The inbox client's error state (issue 30): a first load or catch-up that fails says why in
 * `getState().error` (`unauthorized`, `network`, `server`), keeps retrying with backoff, and clears
 * on the first success; `retry()` tries at once and `setToken()` retries with the new token.
 */
import { describe, expect, it } from 'vitest';
import { createInboxClient, InboxApiError, errorKindOf, InboxTokenError, type FetchLike } from '../../src/client/index.js';
import { FakeClock, FakeInboxServer, aClientNotification } from '../support/client-fakes.js';
import { SECOND, T0 } from '../support/fixtures.js';

function anInbox(options: { token?: () => string; fetch?: (server: FakeInboxServer) => FetchLike } = {}) {
  const clock = new FakeClock(T0 + 3_600 * SECOND);
  const server = new FakeInboxServer(clock);
  server.add(aClientNotification(T0, 'evt-1'), aClientNotification(T0 + SECOND, 'evt-2'));
  const token = options.token ?? (() => 'token-1');
  const client = createInboxClient({
    httpUrl: 'http://inbox.test',
    wsUrl: 'ws://inbox.test',
    token: () => token(),
    fetch: options.fetch ? options.fetch(server) : server.fetch,
    clock,
    live: false,
    random: () => 0.5,
  });
  return { client, server, clock };
}

describe('the inbox client error state', () => {
  it('says a refused token is unauthorized, keeps it through the retries, and recovers when the token works', async () => {
    // Prepare: the identity provider hands out an expired token (refused even after a forced refresh).
    let current = 'expired';
    const { client, clock, server } = anInbox({ token: () => current });

    // Act
    await client.start();
    const failed = client.getState();
    await clock.advance(5 * SECOND);
    const stillFailing = client.getState();
    current = 'token-1';
    await clock.advance(60 * SECOND);

    // Assess
    expect(failed).toMatchObject({ loaded: false, syncing: false, notifications: [] });
    expect(failed.error?.kind).toBe('unauthorized');
    expect(failed.error?.cause).toBeInstanceOf(InboxApiError);
    expect(stillFailing.error?.kind).toBe('unauthorized');
    expect(server.requests.filter((request) => request.startsWith('GET /notifications?')).length).toBeGreaterThan(2);
    expect(client.getState()).toMatchObject({ loaded: true, error: undefined });
    expect(client.getState().notifications).toHaveLength(2);
  });

  it('retries at once on retry(), without waiting for the backoff', async () => {
    // Prepare
    let current = 'expired';
    const { client } = anInbox({ token: () => current });
    await client.start();
    expect(client.getState().error?.kind).toBe('unauthorized');

    // Act
    current = 'token-1';
    await client.retry();

    // Assess
    expect(client.getState()).toMatchObject({ loaded: true, error: undefined });
  });

  it('retries at once with the token given to setToken', async () => {
    // Prepare
    const { client } = anInbox({ token: () => 'expired' });
    await client.start();

    // Act
    client.setToken('token-1');
    await client.requestSync();

    // Assess
    expect(client.getState()).toMatchObject({ loaded: true, error: undefined });
  });

  it('tells an unreachable service (fetch throws) from a failing one (500) and from a token provider that throws', async () => {
    // Prepare
    const unreachable = anInbox({ fetch: () => async () => Promise.reject(new TypeError('Failed to fetch')) });
    const failing = anInbox({ fetch: () => async () => ({ status: 500, ok: false, json: async () => ({}), text: async () => '{"error":{"code":"internal","message":"boom"}}' }) });
    const signedOut = anInbox({
      token: () => {
        throw new Error('signed out');
      },
    });

    // Act
    await Promise.all([unreachable.client.start(), failing.client.start(), signedOut.client.start()]);

    // Assess
    expect(unreachable.client.getState().error?.kind).toBe('network');
    expect(failing.client.getState().error?.kind).toBe('server');
    expect(signedOut.client.getState().error?.kind).toBe('unauthorized');
    expect(signedOut.client.getState().error?.cause).toBeInstanceOf(InboxTokenError);
  });

  it('classifies errors by what the answer was', () => {
    expect(errorKindOf(new InboxApiError(401, 'unauthorized', 'expired'))).toBe('unauthorized');
    expect(errorKindOf(new InboxApiError(403, 'forbidden', 'denied'))).toBe('unauthorized');
    expect(errorKindOf(new InboxApiError(429, 'throttled', 'slow down'))).toBe('server');
    expect(errorKindOf(new SyntaxError('Unexpected token <'))).toBe('server');
    expect(errorKindOf(new TypeError('Failed to fetch'))).toBe('network');
  });
});
