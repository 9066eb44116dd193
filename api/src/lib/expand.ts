import { invalid } from '../errors';
import { escapeUnsafe } from './text';

/**
 * Stripe's `expand[]` asks for a referenced object inline. bpay expands one field, where Stripe's integrations ask for
 * it: `latest_charge` on retrieving a payment intent (GET /api/v1/payment_intents/{id}?expand[]=latest_charge answers
 * the Charge with its allocations). Every other expansion is refused, saying why, instead of a bare "expand is not an
 * allowed field":
 *
 * - latest_charge elsewhere (and charges): the intent's one Charge is its latest_charge id (ch_…), answered by
 *   GET /api/v1/charges/{id} or expanded on retrieve.
 * - payment_method: it is the id of the bcard that paid (bc_…); a bcard is the consumer's, not an object a merchant
 *   can read.
 *
 * Checked on every merchant route (plugins/merchant-auth.ts), in the query (`expand[]=…`, `expand[0]=…`) and the body
 * (`expand` as JSON's list or a form's `expand[]`), before the route's own validation.
 */
const EXPAND_KEY = /^expand(\[\d*\])?$/;

const WHY: Record<string, string> = {
  latest_charge:
    'latest_charge is expanded only when retrieving one payment intent (GET /v1/payment_intents/{id}?expand[]=latest_charge); ' +
    'elsewhere it is the charge id (ch_…), which GET /v1/charges/{id} answers.',
  charges:
    "a payment intent has one charge, its latest_charge (ch_…): expand[]=latest_charge on retrieving the intent, or " +
    'GET /v1/charges?payment_intent=<id>.',
  payment_method: 'payment_method is the id of the bcard that paid (bc_…), not a PaymentMethod object a merchant can read.',
};

/** The expansions a merchant route answers: retrieving one payment intent expands latest_charge; nothing else expands. */
export function expandableAt(method: string, path: string): readonly string[] {
  return method === 'GET' && /^\/api\/v1\/payment_intents\/(?!search$)[^/]+$/.test(path) ? ['latest_charge'] : [];
}

/** The fields a request's query asks to expand (`expand[]=a`, `expand[0]=a`, `expand=a`). */
export function expandsAsked(params: URLSearchParams): string[] {
  const asked: string[] = [];
  for (const [key, v] of params) if (EXPAND_KEY.test(key)) asked.push(v);
  return asked;
}

function explain(field: string): string {
  const path = field.replace(/^data\./, '');
  const shown = escapeUnsafe(field.length > 100 ? `${field.slice(0, 100)}…` : field);
  const why = WHY[path.split('.')[0] ?? ''] ?? 'bpay expands only latest_charge, on retrieving a payment intent; every other object is answered whole, and referenced objects by their id.';
  return `This property cannot be expanded (${shown}): ${why}`;
}

function values(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [v];
}

/**
 * Throws validation_error (param `expand[i]`) for the first expansion asked for in the query or the body that is not
 * one of `allowed` (expandableAt).
 */
export function refuseExpand(query: Record<string, unknown> | undefined, body: unknown, allowed: readonly string[] = []): void {
  const asked: unknown[] = [];
  for (const [key, v] of Object.entries(query ?? {})) if (EXPAND_KEY.test(key)) asked.push(...values(v));
  if (body && typeof body === 'object' && !Array.isArray(body) && 'expand' in body) {
    asked.push(...values((body as Record<string, unknown>).expand));
  }
  for (const [i, field] of asked.entries()) {
    if (typeof field !== 'string' || field === '') throw invalid(`expand[${i}]`, 'expand must be a list of field names.');
    if (!allowed.includes(field)) throw invalid(`expand[${i}]`, explain(field));
  }
}
