/**
 * Structural limits for JSON request bodies, checked in one linear pass over the text before JSON.parse and before
 * any validator sees the value. A body nested thousands of levels deep costs nothing to send and used to take the
 * validator seconds (and its error path the whole stack) while the one JavaScript thread served nobody else.
 */
export interface JsonLimits {
  /** Deepest nesting of objects and arrays; the body's own object is depth 1. */
  maxDepth: number;
  /** Most keys in one object or items in one array. */
  maxItems: number;
  /** Most keys and items in the whole body. */
  maxTotal: number;
}

export const JSON_LIMITS: JsonLimits = { maxDepth: 32, maxItems: 1000, maxTotal: 10_000 };

export type JsonStructureProblem =
  | { kind: 'depth'; limit: number }
  | { kind: 'items'; limit: number }
  | { kind: 'total'; limit: number };

const QUOTE = 34; // "
const BACKSLASH = 92; // \
const COMMA = 44; // ,
const OPEN_OBJECT = 123; // {
const OPEN_ARRAY = 91; // [
const CLOSE_OBJECT = 125; // }
const CLOSE_ARRAY = 93; // ]

/**
 * The first limit the text breaks, or null. Counts separators, so a container of n members counts n - 1 commas
 * plus one; malformed text is left for JSON.parse to refuse. Never recurses, never allocates per character: the
 * cost is one comparison per byte and a stack no deeper than maxDepth.
 */
export function checkJsonStructure(text: string, limits: JsonLimits = JSON_LIMITS): JsonStructureProblem | null {
  const counts = new Uint32Array(limits.maxDepth + 1);
  let depth = 0;
  let total = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
      continue;
    }
    if (c === QUOTE) inString = true;
    else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (depth === limits.maxDepth) return { kind: 'depth', limit: limits.maxDepth };
      depth++;
      counts[depth] = 1;
      if (++total > limits.maxTotal) return { kind: 'total', limit: limits.maxTotal };
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      if (depth > 0) depth--;
    } else if (c === COMMA && depth > 0) {
      if (++counts[depth]! > limits.maxItems) return { kind: 'items', limit: limits.maxItems };
      if (++total > limits.maxTotal) return { kind: 'total', limit: limits.maxTotal };
    }
  }
  return null;
}

export function describeJsonProblem(p: JsonStructureProblem): string {
  switch (p.kind) {
    case 'depth':
      return `The request body nests objects and arrays more than ${p.limit} levels deep.`;
    case 'items':
      return `The request body has an object or array with more than ${p.limit} members.`;
    case 'total':
      return `The request body has more than ${p.limit} keys and items in all.`;
  }
}
