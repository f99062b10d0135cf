/** The client's preferences methods: GET and PUT /preferences with the bearer token and a JSON body. */
import { describe, expect, it } from 'vitest';
import { createInboxRest, type NotificationPreferences } from '../../src/client/index.js';
import type { FetchLike } from '../../src/client/types.js';

const stored: NotificationPreferences = { timeZone: 'Europe/Berlin', quietHours: { start: '22:00', end: '07:00' }, mutedTypes: ['post.published'], liveDelivery: { 'comment.created': false }, updatedAt: '2026-11-21T09:00:00.000Z' };

describe('client preferences', () => {
  it('reads with GET and replaces with PUT and a JSON body', async () => {
    // Prepare
    const calls: { url: string; method?: string; body?: string; headers?: Record<string, string> }[] = [];
    const fetch: FetchLike = async (url, init) => {
      calls.push({ url, ...init });
      return { ok: true, status: 200, text: async () => JSON.stringify(stored), json: async () => stored } as unknown as Awaited<ReturnType<FetchLike>>;
    };
    const rest = createInboxRest({ baseUrl: 'https://api.example.com/v1/', token: 'jwt', fetch });
    const { updatedAt: _updatedAt, ...input } = stored;

    // Act
    const read = await rest.getPreferences();
    const saved = await rest.putPreferences(input);

    // Assess
    expect(read).toEqual(stored);
    expect(saved).toEqual(stored);
    expect(calls.map((call) => [call.method, call.url])).toEqual([
      ['GET', 'https://api.example.com/v1/preferences'],
      ['PUT', 'https://api.example.com/v1/preferences'],
    ]);
    expect(calls[0]!.body).toBeUndefined();
    expect(JSON.parse(calls[1]!.body!)).toEqual(input);
    expect(calls[1]!.headers).toMatchObject({ authorization: 'Bearer jwt', 'content-type': 'application/json' });
  });
});
