/**
 * The fan-out's erasure check started early (src/core/fanout/erasure-lookahead.ts): the service
 * takes the read the handler started instead of making its own; a read nobody takes is dropped.
 */
import { describe, expect, it } from 'vitest';
import { ErasureLookahead } from '../../src/core/fanout/erasure-lookahead.js';
import type { ErasedUsers } from '../../src/core/ports/erased-users.js';

function countingTombstones(erased: readonly string[] = []): ErasedUsers & { reads: string[][] } {
  const reads: string[][] = [];
  return {
    reads,
    async erasedAmong(_tenantId, userIds) {
      reads.push([...userIds]);
      return new Set(userIds.filter((userId) => erased.includes(userId)));
    },
  };
}

describe('When the handler starts the erasure read before the service runs', () => {
  it('answers the service from that read: one BatchGetItem for the event, not two', async () => {
    // Prepare
    const tombstones = countingTombstones(['carol']);
    const lookahead = new ErasureLookahead(tombstones);
    // Act
    lookahead.start('acme', ['bob', 'alice', 'carol']);
    const erased = await lookahead.erasedAmong('acme', ['bob', 'alice', 'carol']);
    // Assess
    expect([...erased]).toEqual(['carol']);
    expect(tombstones.reads).toHaveLength(1);
  });

  it('reads again for other users, after a forget, and once taken (a retry reads the tombstones anew)', async () => {
    const tombstones = countingTombstones();
    const lookahead = new ErasureLookahead(tombstones);

    lookahead.start('acme', ['bob', 'alice']);
    await lookahead.erasedAmong('acme', ['bob', 'dave']);
    lookahead.forget('acme', ['bob', 'alice']);
    await lookahead.erasedAmong('acme', ['bob', 'alice']);
    lookahead.start('acme', ['erin']);
    await lookahead.erasedAmong('acme', ['erin']);
    await lookahead.erasedAmong('acme', ['erin']);

    expect(tombstones.reads).toEqual([['bob', 'alice'], ['bob', 'dave'], ['bob', 'alice'], ['erin'], ['erin']]);
  });

  it('hands a failed read to the service that takes it, and a failed read nobody takes is no unhandled rejection', async () => {
    const failing: ErasedUsers = { erasedAmong: async () => Promise.reject(new Error('table unreadable')) };
    const lookahead = new ErasureLookahead(failing);

    lookahead.start('acme', ['bob']);
    await expect(lookahead.erasedAmong('acme', ['bob'])).rejects.toThrow('table unreadable');
    lookahead.start('acme', ['alice']);
    lookahead.forget('acme', ['alice']);
    await new Promise((resolve) => setTimeout(resolve, 10));
  });
});
