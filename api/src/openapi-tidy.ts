/**
 * The OpenAPI document as Elysia writes it, made plain for its two readers (Swagger UI and openapi-typescript):
 *
 * 1. Elysia writes an integer (or boolean) of a model as `anyOf: [{ type: 'string', format: 'integer' }, { type:
 *    'integer' }]`, because it coerces query strings. On the wire the API sends and expects the plain type, and
 *    the generated SDK types should say so (`amount: number`, not `number | string`). Such a pair collapses into
 *    its plain member, keeping the outer description and example.
 * 2. A shared model carries TypeBox's `$id` ('#/components/schemas/Refund'), inline wherever a route names it and
 *    on its components entry. In OpenAPI 3.1 (JSON Schema 2020-12) `$id` sets a new base URI for everything
 *    below it, so Swagger UI resolves `#/components/schemas/Refund` against the schema itself, finds nothing and
 *    shows every such response as "string". Each model with an `$id` becomes one components.schemas entry (the
 *    registered one, or its first inline copy), every inline copy a `$ref` to it (beside the copy's own description
 *    and nullability), and no `$id` is left. A copy that differs otherwise (a variant that kept the `$id`) stays
 *    inline without it.
 *
 * Works on a copy: Elysia caches the document and may share its schema objects with the validators, so
 * nothing it holds is changed. Idempotent (a tidied document comes out equal).
 */
type Node = Record<string, unknown>;

const isObj = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);

const COMPONENT = '#/components/schemas/';

function coercionPair(anyOf: unknown[]): Node | null {
  if (anyOf.length !== 2 || !anyOf.every(isObj)) return null;
  const [a, b] = anyOf as [Node, Node];
  const stringOf = (n: Node) => n.type === 'string' && ['integer', 'numeric', 'boolean', 'number'].includes(String(n.format));
  const plain = (n: Node) => n.type === 'integer' || n.type === 'number' || n.type === 'boolean';
  if (stringOf(a) && plain(b)) return b;
  if (stringOf(b) && plain(a)) return a;
  return null;
}

function collapseCoercions(node: unknown): void {
  if (Array.isArray(node)) {
    node.forEach(collapseCoercions);
    return;
  }
  if (!isObj(node)) return;
  if (Array.isArray(node.anyOf)) {
    const plain = coercionPair(node.anyOf);
    if (plain) {
      delete node.anyOf;
      for (const [k, v] of Object.entries(plain)) if (!(k in node)) node[k] = v;
    }
  }
  for (const v of Object.values(node)) collapseCoercions(v);
}

/** JSON text with object keys sorted: two schemas are the same model when their canonical texts are equal. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isObj(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** A model's copy without what a route may add to it: its nullability (`type: ['object', 'null']`) and description. */
function core(node: Node): { core: Node; nullable: boolean } {
  const out: Node = { ...node };
  delete out.$id;
  let nullable = false;
  if (Array.isArray(out.type) && out.type.length === 2 && out.type.includes('null')) {
    out.type = out.type.find((t) => t !== 'null');
    nullable = true;
  }
  return { core: out, nullable };
}

const withoutDescription = (node: Node): string => canonical({ ...node, description: undefined });

/**
 * Replaces every `$id` model with a `$ref` to its components entry, innermost first (so a model inside another is
 * a reference in both the entry and its copies, and copies compare equal). A copy made nullable or described by
 * its route keeps that beside the reference (`anyOf: [$ref, null]`, `description`). Mutates `doc`.
 */
function hoistModels(doc: Node): void {
  const components = (isObj(doc.components) ? doc.components : (doc.components = {})) as Node;
  const schemas = (isObj(components.schemas) ? components.schemas : (components.schemas = {})) as Record<string, unknown>;
  const entries = new Map<string, Node>();

  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit);
    if (!isObj(node)) return node;
    for (const [k, v] of Object.entries(node)) node[k] = visit(v);
    const id = node.$id;
    if (id === undefined) return node;
    delete node.$id;
    if (typeof id !== 'string' || !id.startsWith(COMPONENT)) return node;
    const name = id.slice(COMPONENT.length);
    const copy = core(node);
    let entry = entries.get(name);
    if (entry === undefined) {
      entry = copy.core;
      entries.set(name, entry);
      schemas[name] = entry;
    } else if (withoutDescription(copy.core) !== withoutDescription(entry)) {
      return node;
    }
    const ref: Node = copy.nullable ? { anyOf: [{ $ref: id }, { type: 'null' }] } : { $ref: id };
    if (node.description !== undefined && node.description !== entry.description) ref.description = node.description;
    return ref;
  };

  // The registered entries first: they are the models' own texts, whatever a route's copy adds.
  for (const [name, schema] of Object.entries(schemas)) {
    if (!isObj(schema)) continue;
    for (const [k, v] of Object.entries(schema)) schema[k] = visit(v);
    if (schema.$id === `${COMPONENT}${name}`) delete schema.$id;
    entries.set(name, schema);
  }
  for (const [k, v] of Object.entries(doc)) if (k !== 'components') doc[k] = visit(v);
}

export function tidyOpenApi<T>(doc: T): T {
  if (!isObj(doc)) return doc;
  const copy = JSON.parse(JSON.stringify(doc)) as Node;
  collapseCoercions(copy);
  hoistModels(copy);
  return copy as T;
}
