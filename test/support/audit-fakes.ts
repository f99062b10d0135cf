/** In-memory stand-ins of the audit trail's ports, for unit tests of the writer, the drainer and `why`. */
import type { AuditDecisionInput } from '../../src/core/audit/decisions.js';
import type { AuditBacklog, AuditBacklogMessage, AuditKeys, AuditSalts, AuditSink, SaltLookup } from '../../src/core/audit/ports.js';
import { newSalt, tenantKeyFromMaster } from '../../src/core/audit/pseudonyms.js';

export class MemorySink implements AuditSink {
  readonly appends: string[][] = [];
  available = true;

  async append(lines: readonly string[]): Promise<void> {
    if (!this.available) throw new Error('sink down');
    this.appends.push([...lines]);
  }

  get lines(): string[] {
    return this.appends.flat();
  }
}

export class MemoryBacklog implements AuditBacklog {
  readonly messages: AuditBacklogMessage[] = [];
  available = true;

  async put(message: AuditBacklogMessage): Promise<void> {
    if (!this.available) throw new Error('backlog down');
    this.messages.push(structuredClone(message));
  }
}

export function memoryKeys(master = Buffer.alloc(32, 7)): AuditKeys & { calls: number; failing: boolean } {
  const keys = {
    calls: 0,
    failing: false,
    async tenantKey(tenantId: string) {
      keys.calls += 1;
      if (keys.failing) throw new Error('KMS unavailable');
      return tenantKeyFromMaster(master, tenantId);
    },
  };
  return keys;
}

/** Salts in a Map, tombstones in a Set (erased users get no new salt). */
export class MemorySalts implements AuditSalts {
  readonly salts = new Map<string, Buffer>();
  readonly tombstones = new Set<string>();
  lookups = 0;

  private key(tenantId: string, userId: string): string {
    return JSON.stringify([tenantId, userId]);
  }

  async saltsOf(tenantId: string, userIds: readonly string[]): Promise<Map<string, SaltLookup>> {
    this.lookups += 1;
    const result = new Map<string, SaltLookup>();
    for (const userId of userIds) {
      const key = this.key(tenantId, userId);
      let salt = this.salts.get(key);
      if (!salt && !this.tombstones.has(key)) {
        salt = newSalt();
        this.salts.set(key, salt);
      }
      result.set(userId, salt ?? 'erased');
    }
    return result;
  }

  async findSalt(tenantId: string, userId: string): Promise<Buffer | undefined> {
    return this.salts.get(this.key(tenantId, userId));
  }

  async forget(tenantId: string, userId: string): Promise<void> {
    this.salts.delete(this.key(tenantId, userId));
  }

  erase(tenantId: string, userId: string): void {
    this.tombstones.add(this.key(tenantId, userId));
    this.salts.delete(this.key(tenantId, userId));
  }
}

export function aDecision(overrides: Partial<AuditDecisionInput> = {}): AuditDecisionInput {
  return { atMs: Date.UTC(2026, 0, 1), tenantId: 'acme', eventId: 'evt-1', userId: 'alice', notificationId: '01JNOTIFICATION00000000000', stage: 'live', channel: 'live', decision: 'pushed', reason: null, attempt: 1, ...overrides };
}
