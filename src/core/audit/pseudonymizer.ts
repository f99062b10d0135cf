/**
 * Turns decisions with clear ids into audit record contents: event, user and notification ids become
 * keyed hashes (src/core/audit/pseudonyms.ts). Tenant keys are cached for the container's life (a
 * KMS call per tenant per container); salts for `saltTtlMs`, so a batch of decisions costs at most
 * one salt read (BatchGetItem) for the users not seen lately and a conditional put per new user.
 * An erased user's salt outlives its deletion only in these caches, at most `saltTtlMs`.
 */
import type { AuditErasureRecord } from '../../contract/audit-record.js';
import type { Clock } from '../ports/clock.js';
import type { AuditRecordContent } from './chain.js';
import type { AuditDecisionInput } from './decisions.js';
import type { AuditErasureInput, AuditKeys, AuditSalts, SaltLookup } from './ports.js';
import { erasureMarker, eventRef, notificationRef, userKey, userRef } from './pseudonyms.js';

export const SALT_CACHE_TTL_MS_DEFAULT = 60_000;
/** Salts kept in memory at most (least recently read go first). */
const SALT_CACHE_MAX = 50_000;

const userKeyOf = (tenantId: string, userId: string) => JSON.stringify([tenantId, userId]);

export class Pseudonymizer {
  private readonly tenantKeys = new Map<string, Promise<Buffer>>();
  private readonly salts = new Map<string, { salt: SaltLookup; expiresAtMs: number }>();
  /** The user keys and pseudonyms derived from cached salts (two HMACs saved per decision). */
  private readonly derived = new WeakMap<Buffer, { tenantKey: Buffer; userId: string; key: Buffer; ref: string }>();

  constructor(
    private readonly keys: AuditKeys,
    private readonly store: AuditSalts,
    private readonly clock: Clock,
    private readonly saltTtlMs = SALT_CACHE_TTL_MS_DEFAULT,
  ) {}

  async tenantKey(tenantId: string): Promise<Buffer> {
    let key = this.tenantKeys.get(tenantId);
    if (!key) {
      key = this.keys.tenantKey(tenantId);
      this.tenantKeys.set(tenantId, key);
      // A failed lookup is not cached: the next batch asks again.
      key.catch(() => this.tenantKeys.delete(tenantId));
    }
    return key;
  }

  /** The records' contents, in the order of `decisions`; throws when a key or salt cannot be read. */
  async contentsOf(decisions: readonly AuditDecisionInput[], erasures: readonly AuditErasureInput[] = []): Promise<AuditRecordContent[]> {
    const tenants = [...new Set([...decisions.map((decision) => decision.tenantId), ...erasures.map((erasure) => erasure.tenantId)])];
    const keys = new Map(await Promise.all(tenants.map(async (tenantId) => [tenantId, await this.tenantKey(tenantId)] as const)));
    const salts = await this.saltsFor(decisions);
    // A batch's decisions share events: each event's hash once per call.
    const events = new Map<string, string>();
    const contents: AuditRecordContent[] = decisions.map((decision) => {
      const tenantKey = keys.get(decision.tenantId)!;
      const salt = decision.userId === undefined ? undefined : salts.get(userKeyOf(decision.tenantId, decision.userId));
      const recipient = decision.userId !== undefined && salt instanceof Buffer ? this.recipient(tenantKey, salt, decision.userId) : undefined;
      const recipientKey = recipient?.key;
      // An erased recipient's notification hash would need their key: none is written.
      const notificationKey = decision.userId === undefined ? tenantKey : recipientKey;
      const eventKey = JSON.stringify([decision.tenantId, decision.eventId]);
      let event = events.get(eventKey);
      if (event === undefined) events.set(eventKey, (event = eventRef(tenantKey, decision.eventId)));
      return {
        kind: 'decision',
        at: new Date(decision.atMs).toISOString(),
        tenant: decision.tenantId,
        event,
        user: decision.userId === undefined ? null : recipient ? recipient.ref : 'erased',
        notification: decision.notificationId !== undefined && notificationKey ? notificationRef(notificationKey, decision.notificationId) : null,
        stage: decision.stage,
        channel: decision.channel,
        decision: decision.decision,
        reason: decision.reason,
        attempt: decision.attempt,
      };
    });
    for (const erasure of erasures) contents.push(this.erasureContent(keys.get(erasure.tenantId)!, erasure));
    return contents;
  }

  /** The user's key and pseudonym, derived once per cached salt (the salt Buffer is the cache entry's). */
  private recipient(tenantKey: Buffer, salt: Buffer, userId: string): { key: Buffer; ref: string } {
    let derived = this.derived.get(salt);
    if (!derived || derived.userId !== userId || derived.tenantKey !== tenantKey) {
      const key = userKey(tenantKey, salt, userId);
      derived = { tenantKey, userId, key, ref: userRef(key) };
      this.derived.set(salt, derived);
    }
    return derived;
  }

  /** Forgets a cached salt (the erasure, in this process). */
  forgetCached(tenantId: string, userId: string): void {
    this.salts.delete(userKeyOf(tenantId, userId));
  }

  private erasureContent(tenantKey: Buffer, erasure: AuditErasureInput): Omit<AuditErasureRecord, 'v' | 'stream' | 'segment' | 'seq' | 'prev'> {
    return { kind: 'erasure', at: new Date(erasure.atMs).toISOString(), tenant: erasure.tenantId, marker: erasureMarker(tenantKey, erasure.userId) };
  }

  private async saltsFor(decisions: readonly AuditDecisionInput[]): Promise<Map<string, SaltLookup>> {
    const nowMs = this.clock.nowMs();
    const found = new Map<string, SaltLookup>();
    const missing = new Map<string, Set<string>>();
    for (const { tenantId, userId, reason } of decisions) {
      if (userId === undefined) continue;
      const key = userKeyOf(tenantId, userId);
      const cached = this.salts.get(key);
      // An erasure drop reads the store: once the salt is deleted it is written as `erased`, whatever this cache still holds.
      if (cached && cached.expiresAtMs > nowMs && reason !== 'erased_user') found.set(key, cached.salt);
      else missing.set(tenantId, (missing.get(tenantId) ?? new Set()).add(userId));
    }
    for (const [tenantId, userIds] of missing) {
      const salts = await this.store.saltsOf(tenantId, [...userIds]);
      for (const [userId, salt] of salts) {
        const key = userKeyOf(tenantId, userId);
        found.set(key, salt);
        this.salts.delete(key);
        this.salts.set(key, { salt, expiresAtMs: nowMs + this.saltTtlMs });
      }
    }
    while (this.salts.size > SALT_CACHE_MAX) this.salts.delete(this.salts.keys().next().value!);
    return found;
  }
}
