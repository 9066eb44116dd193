import { JSON_LIMITS, type JsonLimits, type JsonStructureProblem } from './json-guard';
import { shownText } from './text';

/*
 * Stripe's form encoding (application/x-www-form-urlencoded with brackets), as its libraries send it and its docs
 * describe it: `metadata[order]=42` is an object member, `expand[]=a&expand[]=b` and `expand[0]=a&expand[1]=b` are
 * arrays, `payment_method_data[card][number]=…` nests. Every value stays a string: the route's schema decides what
 * is a number or a boolean (see app.ts, which converts a form body by the route's schema before validation).
 *
 * The same structural limits as JSON bodies (lib/json-guard.ts) hold, so a form body is no cheaper way to send a
 * deep or wide value.
 */

export type FormProblem = JsonStructureProblem | { kind: 'malformed'; key: string; reason: string };

export class FormBodyError extends Error {
  constructor(readonly problem: FormProblem) {
    super(problem.kind === 'malformed' ? problem.reason : `form body breaks the ${problem.kind} limit`);
  }
}

type Container = Record<string, unknown> | unknown[];

/** `a[b][]` → ['a', 'b', ''] (an empty segment appends to an array); null when the brackets are not well formed. */
export function splitFormKey(key: string): string[] | null {
  const open = key.indexOf('[');
  if (open === -1) return key.includes(']') || key === '' ? null : [key];
  if (open === 0) return null;
  const segments = [key.slice(0, open)];
  if (segments[0]!.includes(']')) return null;
  let i = open;
  while (i < key.length) {
    if (key[i] !== '[') return null;
    const close = key.indexOf(']', i);
    if (close === -1) return null;
    const segment = key.slice(i + 1, close);
    if (segment.includes('[')) return null;
    segments.push(segment);
    i = close + 1;
  }
  return segments;
}

/** Own, enumerable, writable: also for a key such as `__proto__`, which plain assignment would treat as the prototype. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

const isIndex = (segment: string) => /^(0|[1-9][0-9]{0,8})$/.test(segment);

interface Walk {
  limits: JsonLimits;
  /** Members counted per container, for the per-object limit. */
  sizes: Map<Container, number>;
}

function countMember(walk: Walk, container: Container): void {
  const n = (walk.sizes.get(container) ?? 0) + 1;
  if (n > walk.limits.maxItems) throw new FormBodyError({ kind: 'items', limit: walk.limits.maxItems });
  walk.sizes.set(container, n);
}

/** The child container under `segment`, made (an array when the next segment is `[]` or an index) when absent. */
function childOf(walk: Walk, parent: Container, segment: string, next: string, key: string): Container {
  const wantArray = next === '' || isIndex(next);
  const existing = readMember(parent, segment);
  if (existing !== undefined) {
    if (typeof existing !== 'object' || existing === null || Array.isArray(existing) !== wantArray) {
      throw new FormBodyError({ kind: 'malformed', key, reason: `${shownText(key)} mixes a value, an object and a list under the same name.` });
    }
    return existing as Container;
  }
  const made: Container = wantArray ? [] : {};
  writeMember(walk, parent, segment, made, key);
  return made;
}

function readMember(container: Container, segment: string): unknown {
  if (Array.isArray(container)) return segment === '' ? undefined : container[Number(segment)];
  return Object.hasOwn(container, segment) ? container[segment] : undefined;
}

function writeMember(walk: Walk, container: Container, segment: string, value: unknown, key: string): void {
  if (Array.isArray(container)) {
    if (segment !== '' && !isIndex(segment)) {
      throw new FormBodyError({ kind: 'malformed', key, reason: `${shownText(key)} names a list member by "${shownText(segment)}", which is no index.` });
    }
    // An index is a position to sort by, not a size: a[999999]=x is one member, not a million holes (see compact()).
    if (segment !== '' && Number(segment) >= walk.limits.maxItems) throw new FormBodyError({ kind: 'items', limit: walk.limits.maxItems });
    countMember(walk, container);
    if (segment === '') container.push(value);
    else container[Number(segment)] = value;
    return;
  }
  countMember(walk, container);
  setOwn(container, segment, value);
}

/** Lists given by index keep their order and lose their holes (`a[0]=x&a[2]=y` is ['x', 'y']), as Stripe reads them. */
function compact(value: unknown): unknown {
  if (Array.isArray(value)) return value.filter((v) => v !== undefined).map(compact);
  if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) setOwn(value as Record<string, unknown>, k, compact(v));
  }
  return value;
}

function assign(walk: Walk, root: Record<string, unknown>, key: string, value: string): void {
  const segments = splitFormKey(key);
  if (!segments) throw new FormBodyError({ kind: 'malformed', key, reason: `${shownText(key)} is not a well-formed key (name, then [member] parts).` });
  // The body's own object is depth 1, as for JSON: `a[b]` holds a value two containers deep.
  if (segments.length > walk.limits.maxDepth) throw new FormBodyError({ kind: 'depth', limit: walk.limits.maxDepth });
  let container: Container = root;
  for (let i = 0; i < segments.length - 1; i++) container = childOf(walk, container, segments[i]!, segments[i + 1]!, key);
  const last = segments.at(-1)!;
  if (last !== '' && readMember(container, last) !== undefined) {
    throw new FormBodyError({ kind: 'malformed', key, reason: `${shownText(key)} is given more than once.` });
  }
  writeMember(walk, container, last, value, key);
}

/**
 * Parses a form body into nested objects and lists of strings. Throws FormBodyError for a key that is not well
 * formed, a name used both as a value and as an object or list, a repeated key, or a broken limit.
 */
export function parseStripeForm(text: string, limits: JsonLimits = JSON_LIMITS): Record<string, unknown> {
  const walk: Walk = { limits, sizes: new Map() };
  const root: Record<string, unknown> = {};
  let total = 0;
  for (const [key, value] of new URLSearchParams(text)) {
    if (++total > limits.maxTotal) throw new FormBodyError({ kind: 'total', limit: limits.maxTotal });
    assign(walk, root, key, value);
  }
  return compact(root) as Record<string, unknown>;
}

/** The JSON-schema view of a TypeBox schema, as far as form conversion reads it. */
export interface FormSchema {
  type?: string | string[];
  format?: string;
  const?: unknown;
  enum?: unknown[];
  anyOf?: FormSchema[];
  properties?: Record<string, FormSchema>;
  patternProperties?: Record<string, FormSchema>;
  additionalProperties?: boolean | FormSchema;
  items?: FormSchema;
}

const ENCODED_FORMATS = new Set(['integer', 'numeric', 'boolean']);
const NUMBER = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/;
const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const hasType = (schema: FormSchema, type: string) => schema.type === type || (Array.isArray(schema.type) && schema.type.includes(type));

/** Whether a union member takes this string as it is (then the string must not be turned into a number). */
function acceptsString(schema: FormSchema, value: string): boolean {
  if (schema.const !== undefined) return schema.const === value;
  if (schema.enum) return schema.enum.includes(value);
  // Elysia's t.Integer, t.Numeric and t.BooleanString are unions with a string member of this format, which stands
  // for the decoded number or boolean rather than for text.
  return hasType(schema, 'string') && !ENCODED_FORMATS.has(schema.format ?? '');
}

function memberSchema(schema: FormSchema, key: string): FormSchema | undefined {
  if (schema.properties && Object.hasOwn(schema.properties, key)) return schema.properties[key];
  const pattern = schema.patternProperties && Object.values(schema.patternProperties)[0];
  if (pattern) return pattern;
  return typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
}

/**
 * Turns a form body's strings into what the route's schema asks for: a number or an integer from decimal digits
 * ("2000" → 2000; "20.5" → 20.5, which an integer schema then refuses by name), a boolean from "true" or "false"
 * (or "True"/"False", as stripe-python sends a Python bool).
 * Anything else stays as sent, so the validator refuses it with the same message a JSON body would get.
 */
export function coerceFormValues(schema: FormSchema | undefined, value: unknown): unknown {
  if (!schema) return value;
  if (schema.anyOf) {
    if (typeof value === 'string' && schema.anyOf.some((m) => acceptsString(m, value))) return value;
    for (const member of schema.anyOf) {
      const converted = coerceFormValues(member, value);
      if (converted !== value) return converted;
    }
    return value;
  }
  if (typeof value === 'string') {
    if ((hasType(schema, 'number') || hasType(schema, 'integer')) && NUMBER.test(value)) return Number(value);
    // "True"/"False" too: stripe-python (Debian's 5.x) form-encodes a Python bool as str(True), and Stripe takes it.
    if (hasType(schema, 'boolean') && /^(true|false|True|False)$/.test(value)) return value.toLowerCase() === 'true';
    return value;
  }
  if (Array.isArray(value)) return hasType(schema, 'array') ? value.map((v) => coerceFormValues(schema.items, v)) : value;
  if (isPlainObject(value) && hasType(schema, 'object')) {
    for (const [k, v] of Object.entries(value)) setOwn(value, k, coerceFormValues(memberSchema(schema, k), v));
  }
  return value;
}
