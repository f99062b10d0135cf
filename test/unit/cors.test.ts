import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/app/config-parsing.js';
import { corsAllowOriginsFromEnv } from '../../src/app/shared-config.js';
import { corsHeaders } from '../../src/handlers/rest/http.js';

describe('CORS', () => {
  it('allows any origin by default (tokens travel in a header, not cookies)', () => {
    expect(corsAllowOriginsFromEnv({})).toEqual(['*']);
    expect(corsHeaders('https://anything.example', ['*'])).toEqual({ 'access-control-allow-origin': '*' });
  });

  it('echoes an allowed origin with Vary, and says nothing to another origin', () => {
    // Prepare
    const allowed = corsAllowOriginsFromEnv({ CORS_ALLOW_ORIGINS: 'https://app.example.com, http://localhost:5173' });

    // Act + Assess
    expect(allowed).toEqual(['https://app.example.com', 'http://localhost:5173']);
    expect(corsHeaders('http://localhost:5173', allowed)).toEqual({ 'access-control-allow-origin': 'http://localhost:5173', vary: 'Origin' });
    expect(corsHeaders('https://evil.example', allowed)).toEqual({});
    expect(corsHeaders(undefined, allowed)).toEqual({});
  });

  it('refuses a setting that is not a list of origins', () => {
    expect(() => corsAllowOriginsFromEnv({ CORS_ALLOW_ORIGINS: 'https://app.example.com/path' })).toThrow(ConfigError);
    expect(() => corsAllowOriginsFromEnv({ CORS_ALLOW_ORIGINS: 'app.example.com' })).toThrow(ConfigError);
  });
});
