import { invalid } from '../errors';
import { escapeUnsafe } from './text';

/**
 * Stripe's `expand[]` asks for a referenced object inline. bpay expands nothing (docs/DECISIONS.md), and says why
 * for the fields a Stripe integration asks for, instead of a bare "expand is not an allowed field":
 *
 * - latest_charge (and charges): bpay has no Charge objects. The bcard pays the PaymentIntent itself, so what a charge
 *   would tell (amount received, refunded, the payment method) is on the PaymentIntent, and its refunds are listed by
 *   GET /api/v1/refunds?payment_intent=<id>.
 * - payment_method: it is the id of the bcard that paid (bc_…); a bcard is the consumer's, not an object a merchant
 *   can read.
 *
 * Checked on every merchant route (plugins/merchant-auth.ts), in the query (`expand[]=…`, `expand[0]=…`) and the body
 * (`expand` as JSON's list or a form's `expand[]`), before the route's own validation.
 */
const EXPAND_KEY = /^expand(\[\d*\])?$/;

const WHY: Record<string, string> = {
  latest_charge:
    'bpay has no Charge objects: a bcard pays the PaymentIntent itself, so amount_received, amount_refunded and ' +
    'payment_method are on the PaymentIntent, and its refunds are listed by GET /api/v1/refunds?payment_intent=<id>.',
  payment_method: 'payment_method is the id of the bcard that paid (bc_…), not a PaymentMethod object a merchant can read.',
};
WHY.charges = WHY.latest_charge!;

function explain(field: string): string {
  const path = field.replace(/^data\./, '');
  const shown = escapeUnsafe(field.length > 100 ? `${field.slice(0, 100)}…` : field);
  const why = WHY[path.split('.')[0] ?? ''] ?? 'bpay expands no fields; every object is answered whole, and referenced objects by their id.';
  return `This property cannot be expanded (${shown}): ${why}`;
}

function values(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [v];
}

/** Throws validation_error (param `expand[i]`) for the first expansion asked for in the query or the body. */
export function refuseExpand(query: Record<string, unknown> | undefined, body: unknown): void {
  const asked: unknown[] = [];
  for (const [key, v] of Object.entries(query ?? {})) if (EXPAND_KEY.test(key)) asked.push(...values(v));
  if (body && typeof body === 'object' && !Array.isArray(body) && 'expand' in body) {
    asked.push(...values((body as Record<string, unknown>).expand));
  }
  if (asked.length === 0) return;
  const first = asked[0];
  if (typeof first !== 'string' || first === '') throw invalid('expand[0]', 'expand must be a list of field names; bpay expands none of them.');
  throw invalid('expand[0]', explain(first));
}
