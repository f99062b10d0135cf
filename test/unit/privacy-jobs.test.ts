/** The privacy job's messages (src/core/privacy/privacy-jobs.ts): what the queue accepts, job ids, export keys. */
import { describe, expect, it } from 'vitest';
import { erasureJobId, exportObjectKey, exportPrefixOf, InvalidPrivacyJobError, jobIdOf, newExportJobId, parseJobId, parsePrivacyJob } from '../../src/core/privacy/privacy-jobs.js';

const event = (detailType: string, detail: unknown, id = 'ev-1') => JSON.stringify({ version: '0', id, 'detail-type': detailType, source: 'my.backend', time: '2026-11-26T08:00:00Z', detail });

describe('privacy job messages', () => {
  it('reads user.erased and user.export.requested events as jobs; a redelivered export event names the same job', () => {
    expect(parsePrivacyJob(event('user.erased', { tenantId: 'acme', userId: 'alice' }))).toEqual({ v: 1, kind: 'erase', tenantId: 'acme', userId: 'alice' });
    const first = parsePrivacyJob(event('user.export.requested', { tenantId: 'acme', userId: 'alice' }));
    const again = parsePrivacyJob(event('user.export.requested', { tenantId: 'acme', userId: 'alice' }));
    const other = parsePrivacyJob(event('user.export.requested', { tenantId: 'acme', userId: 'alice' }, 'ev-2'));
    expect(first.kind === 'export' && again.kind === 'export' && other.kind === 'export' && first.jobId === again.jobId && first.jobId !== other.jobId).toBe(true);
  });

  it('refuses what is no job: not JSON, another detail-type, extra keys (__proto__ too), a job of another kind, a huge body', () => {
    const refused = [
      'not json',
      event('mention.created', { tenantId: 'acme', userId: 'alice' }),
      event('user.erased', { tenantId: 'acme', userId: 'alice', everyone: true }),
      '{"v":1,"kind":"erase","tenantId":"acme","userId":"a","__proto__":{"x":1}}',
      JSON.stringify({ v: 1, kind: 'wipe', tenantId: 'acme', userId: 'a' }),
      JSON.stringify({ v: 1, kind: 'export', tenantId: 'acme', userId: 'a', jobId: '../../etc/passwd' }),
      JSON.stringify({ v: 1, kind: 'erase', tenantId: 'acme', userId: 'a'.repeat(300) }),
    ];
    for (const body of refused) expect(() => parsePrivacyJob(body), body.slice(0, 60)).toThrow(InvalidPrivacyJobError);
  });

  it('gives opaque job ids that name no user and round-trip; anything else is no job id', () => {
    const subject = { tenantId: 'acme', userId: 'alice' };
    expect(erasureJobId(subject)).not.toContain('alice');
    expect(parseJobId(erasureJobId(subject))).toMatchObject({ kind: 'erase', tenantId: 'acme' });
    const exportId = newExportJobId(subject, Date.UTC(2026, 10, 26), 'n1');
    expect(parseJobId(jobIdOf({ kind: 'export', tenantId: 'acme', jobId: exportId }))).toEqual({ kind: 'export', tenantId: 'acme', jobId: exportId });
    for (const forged of ['', 'x', Buffer.from('{"k":"e","t":"acme"}').toString('base64url'), 'a/b', '%00']) expect(parseJobId(forged)).toBeUndefined();
  });

  it('keeps exports under a digest of the subject: never the user id, one prefix per user', () => {
    const alice = { tenantId: 'acme', userId: 'alice' };
    const key = exportObjectKey(alice, newExportJobId(alice, 0, 'n'));
    expect(key.startsWith(exportPrefixOf(alice))).toBe(true);
    expect(key).not.toContain('alice');
    expect(exportPrefixOf({ tenantId: 'acme', userId: 'alic' })).not.toBe(exportPrefixOf(alice));
  });
});
