/**
 * Elysia writes an integer (or boolean) of a model as `anyOf: [{ type: 'string', format: 'integer' }, { type:
 * 'integer' }]`, because it coerces query strings. On the wire the API sends and expects the plain type, and
 * the generated SDK types should say so (`amount: number`, not `number | string`). This collapses such a pair
 * into its plain member, keeping the outer description and example. Idempotent; mutates and returns `doc`.
 */
type Node = Record<string, unknown>;

const isObj = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);

function coercionPair(anyOf: unknown[]): Node | null {
  if (anyOf.length !== 2 || !anyOf.every(isObj)) return null;
  const [a, b] = anyOf as [Node, Node];
  const stringOf = (n: Node) => n.type === 'string' && ['integer', 'numeric', 'boolean', 'number'].includes(String(n.format));
  const plain = (n: Node) => n.type === 'integer' || n.type === 'number' || n.type === 'boolean';
  if (stringOf(a) && plain(b)) return b;
  if (stringOf(b) && plain(a)) return a;
  return null;
}

export function tidyOpenApi<T>(doc: T): T {
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      node.forEach(walk);
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
    for (const v of Object.values(node)) walk(v);
  };
  walk(doc);
  return doc;
}
