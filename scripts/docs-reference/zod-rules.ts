/**
 * The fields of a zod schema and their rules, read from the schema itself (its checks, their
 * messages, `.describe()` texts), so the reference states exactly what validation enforces,
 * refinements included (JSON Schema drops those).
 */
import type * as z from 'zod';
import { code, figure } from './markdown.js';

export interface FieldRow {
  /** Dotted path: `actor.id`, `recipients[]`. */
  path: string;
  required: boolean;
  type: string;
  rules: string[];
  description?: string;
}

/** The parts of zod's public `def` this reader uses (zod 4). */
interface Def {
  type: string;
  checks?: { _zod: { def: CheckDef } }[];
  innerType?: z.ZodType;
  defaultValue?: unknown;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  element?: z.ZodType;
  entries?: Record<string, string | number>;
  values?: unknown[];
  valueType?: z.ZodType;
  options?: z.ZodType[];
  in?: z.ZodType;
  format?: string;
  offset?: boolean;
  pattern?: RegExp;
}

interface CheckDef {
  check: string;
  minimum?: number;
  maximum?: number;
  value?: number;
  inclusive?: boolean;
  format?: string;
  pattern?: RegExp;
  offset?: boolean;
  error?: (issue: object) => unknown;
}

const defOf = (schema: z.ZodType): Def => (schema as unknown as { def: Def }).def;

function messageOf(check: CheckDef): string | undefined {
  const message = check.error?.({});
  return typeof message === 'string' ? message : undefined;
}

function formatRule(format: string | undefined, offset: boolean | undefined, pattern: RegExp | undefined, message: string | undefined): string | undefined {
  if (message !== undefined) return message;
  if (format === 'datetime') return offset ? 'ISO 8601 date-time, `Z` or an offset' : 'ISO 8601 date-time in UTC (`Z`)';
  if (format === 'url') return 'a URL';
  if (format === 'email') return 'an email address';
  if (format === 'regex' && pattern) return `matches ${code(pattern.source)}`;
  return format === undefined ? undefined : `format ${format}`;
}

function lengthRule(min: number | undefined, max: number | undefined, unit: string): string | undefined {
  if (min !== undefined && max !== undefined) return `${figure(min)} to ${figure(max)} ${unit}`;
  if (min !== undefined) return min === 1 && unit === 'characters' ? 'not empty' : `at least ${figure(min)} ${unit}`;
  if (max !== undefined) return `at most ${figure(max)} ${unit}`;
  return undefined;
}

/** The rules of one schema's own checks (not of the schemas it wraps). */
function checkRules(def: Def, unit: string): string[] {
  const rules: string[] = [];
  if (def.format !== undefined) {
    const rule = formatRule(def.format, def.offset, def.pattern, undefined);
    if (rule) rules.push(rule);
  }
  let min: number | undefined;
  let max: number | undefined;
  for (const { _zod } of def.checks ?? []) {
    const check = _zod.def;
    if (check.check === 'min_length') min = check.minimum;
    else if (check.check === 'max_length') max = check.maximum;
    else if (check.check === 'length_equals') rules.push(`exactly ${figure(check.value ?? 0)} ${unit}`);
    else if (check.check === 'greater_than') rules.push(`${check.inclusive ? '>=' : '>'} ${check.value}`);
    else if (check.check === 'less_than') rules.push(`${check.inclusive ? '<=' : '<'} ${check.value}`);
    else if (check.check === 'string_format') {
      const rule = formatRule(check.format, check.offset, check.pattern, messageOf(check));
      if (rule) rules.push(rule);
    } else if (check.check === 'number_format') rules.push('an integer');
    else {
      const message = messageOf(check);
      rules.push(message ?? `checked by ${check.check}`);
    }
  }
  const length = lengthRule(min, max, unit);
  return length ? [length, ...rules] : rules;
}

function descriptionOf(schema: z.ZodType): string | undefined {
  return (schema as unknown as { description?: string }).description;
}

interface Unwrapped {
  schema: z.ZodType;
  required: boolean;
  rules: string[];
  description?: string;
}

/** Strips optional / nullable / default wrappers, keeping what they say. */
function unwrap(schema: z.ZodType): Unwrapped {
  let current = schema;
  let required = true;
  const rules: string[] = [];
  let description = descriptionOf(current);
  for (;;) {
    const def = defOf(current);
    if (def.type === 'optional') required = false;
    else if (def.type === 'nullable') rules.push('or `null`');
    else if (def.type === 'default') {
      required = false;
      rules.push(`default ${code(JSON.stringify(def.defaultValue))}`);
    } else break;
    current = def.innerType!;
    description ??= descriptionOf(current);
  }
  return { schema: current, required, rules, ...(description !== undefined ? { description } : {}) };
}

/** The type of a (unwrapped) schema in a word or a short expression. */
export function typeName(schema: z.ZodType): string {
  const def = defOf(schema);
  switch (def.type) {
    case 'string':
    case 'boolean':
    case 'unknown':
    case 'object':
      return def.type === 'unknown' ? 'any JSON' : def.type;
    case 'number':
      return (def.checks ?? []).some(({ _zod }) => _zod.def.check === 'number_format') ? 'integer' : 'number';
    case 'array':
      return `${typeName(unwrap(def.element!).schema)}[]`;
    case 'enum':
      return Object.values(def.entries ?? {}).map((value) => JSON.stringify(value)).join(' | ');
    case 'literal':
      return (def.values ?? []).map((value) => JSON.stringify(value)).join(' | ');
    case 'record':
      return `{ [key]: ${typeName(unwrap(def.valueType!).schema)} }`;
    case 'union':
      return (def.options ?? []).map((option) => typeName(unwrap(option).schema)).join(' | ');
    case 'pipe':
      return typeName(def.in!);
    default:
      return def.type;
  }
}

/** What an object says about fields it does not name. */
function otherFieldsRule(def: Def): string {
  if (def.catchall === undefined) return 'other fields are dropped';
  return defOf(def.catchall).type === 'never' ? 'no other fields' : 'other fields are kept';
}

/**
 * One row per field of an object schema, nested objects and arrays of objects flattened into dotted
 * paths; `expand: false` keeps a nested object as one row (for `data`, described per type).
 */
export function fieldRows(object: z.ZodType, prefix = '', options: { expand?: (path: string) => boolean } = {}): FieldRow[] {
  const def = defOf(object);
  if (def.type !== 'object' || !def.shape) throw new Error(`expected an object schema at ${prefix || '(root)'}, got ${def.type}`);
  return Object.entries(def.shape).flatMap(([name, field]) => {
    const path = prefix ? `${prefix}.${name}` : name;
    const { schema, required, rules, description } = unwrap(field);
    const inner = defOf(schema);
    const unit = inner.type === 'array' ? 'items' : 'characters';
    const row: FieldRow = { path, required, type: typeName(schema), rules: [...checkRules(inner, unit), ...rules], ...(description !== undefined ? { description } : {}) };
    const expand = options.expand?.(path) ?? true;
    if (inner.type === 'object' && expand) {
      row.rules.push(otherFieldsRule(inner));
      return [row, ...fieldRows(schema, path, options)];
    }
    if (inner.type === 'array') {
      const element = unwrap(inner.element!).schema;
      const elementDef = defOf(element);
      if (elementDef.type === 'object' && expand) return [row, ...fieldRows(element, `${path}[]`, options)];
      const each = checkRules(elementDef, 'characters');
      if (each.length > 0) row.rules.push(`each: ${each.join(', ')}`);
    }
    return [row];
  });
}

/** The object-level rules of a schema (refinements on the whole object, unknown fields). */
export function objectRules(object: z.ZodType): string[] {
  const def = defOf(object);
  return [...checkRules(def, 'characters'), otherFieldsRule(def)];
}
