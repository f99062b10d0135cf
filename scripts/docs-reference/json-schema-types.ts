/**
 * A JSON Schema (as zod's `toJSONSchema` and the OpenAPI document emit it) as a short TypeScript-like
 * type: `{ unread: integer, unseen: integer, capped: boolean }`. Sub-schemas equal to a named shape
 * print as its name, so a message reads `{ type: "notification", notification: Notification }`.
 */
export type JsonSchema = Record<string, unknown>;

export type NamedShapes = ReadonlyMap<string, JsonSchema>;

const stable = (value: unknown): string => JSON.stringify(value, (_key, inner: unknown) => (inner && typeof inner === 'object' && !Array.isArray(inner) ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => a.localeCompare(b))) : inner));

export function typeText(schema: JsonSchema | undefined, shapes: NamedShapes = new Map()): string {
  if (schema === undefined || Object.keys(schema).length === 0) return 'unknown';
  const key = stable(schema);
  for (const [name, shape] of shapes) if (stable(shape) === key) return name;
  if (typeof schema.$ref === 'string') return schema.$ref.split('/').pop()!;
  if (Array.isArray(schema.enum)) return schema.enum.map((value) => JSON.stringify(value)).join(' | ');
  if ('const' in schema) return JSON.stringify(schema.const);
  const union = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (union) return union.map((option) => typeText(option, shapes)).join(' | ');
  if (Array.isArray(schema.type)) return schema.type.map((type: unknown) => typeText({ ...schema, type } as JsonSchema, shapes)).join(' | ');
  switch (schema.type) {
    case 'array': {
      const items = schema.items as JsonSchema | undefined;
      const itemText = typeText(items, shapes);
      return `${isUnion(items) && !shapes.has(itemText) ? `(${itemText})` : itemText}[]`;
    }
    case 'object':
      return objectText(schema, shapes);
    case 'string':
    case 'integer':
    case 'number':
    case 'boolean':
    case 'null':
      return schema.type;
    default:
      return 'unknown';
  }
}

function isUnion(schema: JsonSchema | undefined): boolean {
  if (!schema) return false;
  const options = (schema.anyOf ?? schema.oneOf ?? schema.enum ?? (Array.isArray(schema.type) ? schema.type : undefined)) as unknown[] | undefined;
  return options !== undefined && options.length > 1;
}

function objectText(schema: JsonSchema, shapes: NamedShapes): string {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  const fields = Object.entries(properties).map(([name, property]) => `${name}${required.has(name) ? '' : '?'}: ${typeText(property, shapes)}`);
  const extra = schema.additionalProperties;
  if (extra && typeof extra === 'object') {
    const keyType = typeText(schema.propertyNames as JsonSchema | undefined, shapes);
    const keys = keyType === 'string' || keyType === 'unknown' ? 'key' : `key in ${keyType}`;
    fields.push(Object.keys(extra).length === 0 ? '...' : `[${keys}]: ${typeText(extra as JsonSchema, shapes)}`);
  }
  return fields.length === 0 ? '{}' : `{ ${fields.join(', ')} }`;
}

/** The top-level fields of an object schema, `?` marking the optional ones: `upTo?`. */
export function fieldNames(schema: JsonSchema | undefined): string[] {
  if (!schema) return [];
  const required = new Set((schema.required ?? []) as string[]);
  return Object.keys((schema.properties ?? {}) as object).map((name) => (required.has(name) ? name : `${name}?`));
}
