/**
 * What a field accepts, in words, read from its JSON schema (TypeBox's, as Elysia validates with it): "an integer
 * from 1 to 100", "a string of at most 64 characters", "one of automatic, manual". A validation error names the field
 * and says this, so no client ever sees a validator's own text ("Expected union value").
 *
 * Only the JSON-schema keywords are read (type, enum, const, anyOf, bounds, items, patternProperties): the schemas
 * bpay's routes use. Anything else is "a valid value" rather than a guess.
 */
export interface SchemaLike {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: SchemaLike[];
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  multipleOf?: number;
  minItems?: number;
  maxItems?: number;
  items?: SchemaLike;
  properties?: Record<string, SchemaLike>;
  patternProperties?: Record<string, SchemaLike>;
}

const list = (values: unknown[]) => values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ');

function range(lo: number | undefined, hi: number | undefined, loEx: number | undefined, hiEx: number | undefined): string {
  if (lo !== undefined && hi !== undefined) return ` from ${lo} to ${hi}`;
  const words: string[] = [];
  if (lo !== undefined) words.push(`at least ${lo}`);
  else if (loEx !== undefined) words.push(`greater than ${loEx}`);
  if (hi !== undefined) words.push(`at most ${hi}`);
  else if (hiEx !== undefined) words.push(`less than ${hiEx}`);
  if (words.length === 0) return '';
  return `${words[0]!.startsWith('at ') ? ' of ' : ' '}${words.join(' and ')}`;
}

function lengths(min: number | undefined, max: number | undefined, unit: string, units: string): string {
  const u = (n: number) => (n === 1 ? unit : units);
  if (min !== undefined && max !== undefined) return min === max ? ` of exactly ${max} ${u(max)}` : ` of ${min} to ${max} ${u(max)}`;
  if (max !== undefined) return ` of at most ${max} ${u(max)}`;
  if (min !== undefined && min > 0) return ` of at least ${min} ${u(min)}`;
  return '';
}

/** A numeric or integer string branch that Elysia's t.Numeric adds for query strings: not a separate choice to name. */
const isNumericStringBranch = (s: SchemaLike) => s.type === 'string' && (s.format === 'numeric' || s.format === 'integer');

export function describeAccepted(schema: SchemaLike | undefined): string {
  if (!schema || typeof schema !== 'object') return 'a valid value';
  if (schema.enum) return `one of ${list(schema.enum)}`;
  if ('const' in schema) return JSON.stringify(schema.const);
  if (schema.anyOf) {
    const branches = schema.anyOf.filter((b) => !isNumericStringBranch(b));
    const parts = [...new Set((branches.length > 0 ? branches : schema.anyOf).map(describeAccepted))];
    return parts.join(' or ');
  }
  switch (schema.type) {
    case 'string': {
      if (schema.format === 'email') return 'an email address';
      if (schema.format === 'date-time') return 'a date and time (ISO 8601)';
      const base = `a string${lengths(schema.minLength, schema.maxLength, 'character', 'characters')}`;
      return schema.pattern ? `${base} matching ${schema.pattern}` : base;
    }
    case 'integer':
    case 'number': {
      const whole = schema.type === 'integer' || schema.multipleOf === 1;
      return `${whole ? 'an integer' : 'a number'}${range(schema.minimum, schema.maximum, schema.exclusiveMinimum, schema.exclusiveMaximum)}`;
    }
    case 'boolean':
      return 'true or false';
    case 'null':
      return 'null';
    case 'array': {
      const n = lengths(schema.minItems, schema.maxItems, 'item', 'items');
      return schema.items ? `a list${n}, each ${describeAccepted(schema.items)}` : `a list${n}`;
    }
    case 'object': {
      const values = schema.patternProperties ? Object.values(schema.patternProperties)[0] : undefined;
      if (values) return `an object whose values are ${plural(describeAccepted(values))}`;
      const keys = Object.keys(schema.properties ?? {});
      return keys.length > 0 ? `an object with ${keys.length > 1 ? `${keys.slice(0, -1).join(', ')} and ${keys.at(-1)}` : keys[0]}` : 'an object';
    }
    default:
      return 'a valid value';
  }
}

/** "a string of at most 500 characters" -> "strings of at most 500 characters" (for the values of an object). */
function plural(phrase: string): string {
  return phrase
    .replace(/^an integer/, 'integers')
    .replace(/^a number/, 'numbers')
    .replace(/^a string/, 'strings')
    .replace(/^an object/, 'objects')
    .replace(/^a list/, 'lists')
    .replace(/^one of /, 'each one of ');
}
