/**
 * The local notifications bus's rules, as the stack defines them: each an event pattern and the
 * queue it targets (the privacy job's rule, then each catalog type's intake lanes from
 * src/notifications/intake-lanes.ts). An event goes to every rule it matches, like EventBridge.
 * Rules are indexed by their `detail-type`; the rest of a pattern (an urgent lane's
 * `detail.priority`) is evaluated only for the detail-types that need it.
 */
import type { EventPattern } from '../../notifications/intake-lanes.js';
import type { LocalQueue } from '../sqs/index.js';
import { assertSupportedPattern, matchesEventPattern } from './event-pattern.js';

export interface LocalBusRule {
  /** The rule's name (its CDK construct id). */
  name: string;
  pattern: EventPattern;
  queue: LocalQueue;
}

interface IndexedRules {
  rules: LocalBusRule[];
  /** Whether a rule of this detail-type reads more of the event than its detail-type. */
  readsEvent: boolean;
}

const onlyDetailType = (pattern: EventPattern) => Object.keys(pattern).every((field) => field === 'detail-type');

export class LocalBusRules {
  private readonly byDetailType = new Map<string, IndexedRules>();

  /** Throws on a pattern without a `detail-type` list or with an operator the local bus cannot evaluate. */
  constructor(rules: readonly LocalBusRule[]) {
    for (const rule of rules) {
      assertSupportedPattern(rule.pattern);
      const detailTypes = rule.pattern['detail-type'];
      if (!Array.isArray(detailTypes) || !detailTypes.every((detailType): detailType is string => typeof detailType === 'string')) {
        throw new Error(`local bus rule ${rule.name}: its pattern must list its detail-types`);
      }
      for (const detailType of detailTypes) {
        const indexed = this.byDetailType.get(detailType) ?? { rules: [], readsEvent: false };
        indexed.rules.push(rule);
        indexed.readsEvent ||= !onlyDetailType(rule.pattern);
        this.byDetailType.set(detailType, indexed);
      }
    }
  }

  /** The queues an event of `detailType` goes to; `event()` (the EventBridge event, parsed) is called only when a pattern reads more than the detail-type. */
  targetsOf(detailType: string, event: () => unknown): LocalQueue[] {
    const indexed = this.byDetailType.get(detailType);
    if (!indexed) return [];
    if (!indexed.readsEvent) return indexed.rules.map((rule) => rule.queue);
    const parsed = event();
    return indexed.rules.filter((rule) => matchesEventPattern(rule.pattern, parsed)).map((rule) => rule.queue);
  }
}
