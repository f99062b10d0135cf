import { describe, expect, it } from 'vitest';
import { InvalidIdentifierError } from '../../src/core/model/errors.js';
import { parseTables as parseTablesFromErase } from '../../src/ops/erase.js';
import { awsTablesTarget, parseNumberFlag, parseSubject, parseTables } from '../../src/ops/targets.js';

const ALL_TABLES = 'inbox=i,readMarks=r,connections=c,graph=g,idempotency=d';

describe('operator command arguments (erase, export)', () => {
  it('accepts odd but valid ids as they are (auth0|x, __proto__, 256 characters) and refuses 300-character and empty ids', () => {
    expect(parseSubject({ tenant: 'acme', user: 'auth0|x' })).toEqual({ tenantId: 'acme', userId: 'auth0|x' });
    const proto = parseSubject({ tenant: '__proto__', user: '__proto__' });
    expect(proto).toEqual({ tenantId: '__proto__', userId: '__proto__' });
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
    expect(parseSubject({ tenant: 'acme', user: 'u'.repeat(256) }).userId).toHaveLength(256);
    expect(() => parseSubject({ tenant: 'acme', user: 'u'.repeat(300) })).toThrow(InvalidIdentifierError);
    expect(() => parseSubject({ tenant: '', user: 'bob' })).toThrow(InvalidIdentifierError);
    expect(() => parseSubject({ tenant: 'acme' })).toThrow(InvalidIdentifierError);
  });

  it('refuses numeric flags that are not finite numbers at or above their minimum', () => {
    expect(parseNumberFlag('grace-ms', '0')).toBe(0);
    expect(parseNumberFlag('feed-shards', '8', 1)).toBe(8);
    for (const bad of ['abc', '', ' ', 'NaN', 'Infinity', '-1', '1e400']) expect(() => parseNumberFlag('grace-ms', bad)).toThrow(/--grace-ms must be a number/);
    expect(() => parseNumberFlag('step-budget', '0', 1)).toThrow(/>= 1/);
  });

  it('reads --tables into every table name and ignores prototype keys and unknown names', () => {
    expect(parseTables(` ${ALL_TABLES.replace(',', ' , ')} `)).toEqual({ inbox: 'i', readMarks: 'r', connections: 'c', graph: 'g', idempotency: 'd' });
    const withProto = parseTables(`__proto__=x,constructor=y,${ALL_TABLES}`);
    expect(Object.keys(withProto).sort()).toEqual(['connections', 'graph', 'idempotency', 'inbox', 'readMarks']);
    expect(Object.getPrototypeOf(withProto)).toBe(Object.prototype);
    expect(() => parseTables('inbox=i,graph=')).toThrow(/missing readMarks, connections, graph, idempotency/);
    expect(() => parseTables('toString=x')).toThrow(/missing inbox/);
    expect(parseTablesFromErase).toBe(parseTables);
  });

  it('builds the AWS target of --tables once, with the idempotency table and optional endpoint and shards', () => {
    const target = awsTablesTarget({ tables: ALL_TABLES, region: 'eu-west-1', managementEndpoint: 'https://ws.example/prod', feedShards: 4 });
    try {
      expect(target).toMatchObject({ kind: 'aws', idempotencyTable: 'd', tables: { inbox: 'i', idempotency: 'd' }, managementEndpoint: 'https://ws.example/prod', feedShards: 4 });
    } finally {
      target.destroy();
    }
  });
});
