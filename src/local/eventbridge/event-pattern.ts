/**
 * EventBridge event pattern matching, for the operators the stack's rules use (exact JSON scalars,
 * `anything-but` of a string or strings, `exists`), with EventBridge's semantics (aws/event-ruler):
 * a pattern matches when every field it names matches, a field when any of its matchers does; only
 * leaf values are compared (an object is not a leaf: `exists: false` matches a field holding one, as
 * it matches a missing field); an array in the event matches when one of its elements does.
 * `anything-but` needs a leaf to be present (the lanes' patterns pair it with `exists: false`, so they
 * do not depend on it). Any other operator throws: a pattern the local bus cannot evaluate must fail
 * loudly at start, never route differently from AWS.
 */
import type { EventPattern, EventPatternMatcher } from '../../notifications/intake-lanes.js';

type Json = unknown;

/**
 * The values at a field with arrays flattened (nested arrays too), iteratively: an entry's Detail is
 * read before it is validated, so a hostile nesting depth must not overflow the stack.
 */
function flattened(value: Json): Json[] {
  const out: Json[] = [];
  const pending: Json[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (Array.isArray(next)) for (let index = next.length - 1; index >= 0; index -= 1) pending.push(next[index]);
    else out.push(next);
  }
  return out;
}

/** The leaf values at a field of the event: its scalar, or the scalars of its array (nested arrays flattened); none for a missing field or an object. */
function leaves(value: Json): Json[] {
  return flattened(value).filter((item) => item !== undefined && (typeof item !== 'object' || item === null));
}

/** The objects at a field (an array's object elements), for a nested pattern. */
function objects(value: Json): Record<string, Json>[] {
  return flattened(value).filter((item): item is Record<string, Json> => typeof item === 'object' && item !== null);
}

function isScalar(matcher: EventPatternMatcher): matcher is string | number | boolean | null {
  return matcher === null || typeof matcher !== 'object';
}

function matcherMatches(matcher: EventPatternMatcher, values: Json[]): boolean {
  if (isScalar(matcher)) return values.some((value) => value === matcher);
  const keys = Object.keys(matcher);
  if (keys.length === 1 && 'exists' in matcher && typeof matcher.exists === 'boolean') return matcher.exists === values.length > 0;
  if (keys.length === 1 && 'anything-but' in matcher) {
    const excluded: readonly Json[] = typeof matcher['anything-but'] === 'string' ? [matcher['anything-but']] : matcher['anything-but'];
    return values.some((value) => !excluded.includes(value));
  }
  throw new Error(`event pattern operator ${JSON.stringify(matcher)} is not supported by the local bus`);
}

/** Throws when the pattern holds an operator `matchesEventPattern` cannot evaluate (checked once, when the bus's rules are built). */
export function assertSupportedPattern(pattern: EventPattern): void {
  for (const value of Object.values(pattern)) {
    if (Array.isArray(value)) for (const matcher of value as readonly EventPatternMatcher[]) matcherMatches(matcher, []);
    else assertSupportedPattern(value as EventPattern);
  }
}

/** Whether the EventBridge event (`detail-type`, `source`, `detail`, ...) matches the pattern. */
export function matchesEventPattern(pattern: EventPattern, event: Json): boolean {
  return Object.entries(pattern).every(([field, expected]) => {
    const value = objects(event).map((object) => (Object.hasOwn(object, field) ? object[field] : undefined));
    if (Array.isArray(expected)) {
      const values = value.flatMap(leaves);
      return (expected as readonly EventPatternMatcher[]).some((matcher) => matcherMatches(matcher, values));
    }
    const nested = expected as EventPattern;
    const children = value.flatMap(objects);
    // A nested pattern over a missing object: only `exists: false` matchers can still match (no leaves below).
    return children.length === 0 ? matchesEventPattern(nested, {}) : children.some((child) => matchesEventPattern(nested, child));
  });
}
