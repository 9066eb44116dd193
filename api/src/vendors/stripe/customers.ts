import type Stripe from 'stripe';
import { metadataQuery } from './client';

/**
 * The Stripe customer of a bpay customer (by its ref), found by metadata search or created under a constant key.
 * One lookup per vendor: it caches what it found.
 */
export function customerLookup(stripe: Stripe): (customerRef: string) => Promise<string> {
  /** customerRef -> Stripe customer id. Search lags writes, so this also stops duplicates within a process. */
  const customers = new Map<string, string>();

  async function customerFor(customerRef: string): Promise<string> {
    const cached = customers.get(customerRef);
    if (cached) return cached;
    const found = await stripe.customers.search({ query: metadataQuery('bpay_customer_ref', customerRef), limit: 1 });
    let id = found.data[0]?.id;
    if (!id) {
      // Constant parameters, so a replay of this key (another verifyCard within 24 h) returns the same customer.
      const created = await stripe.customers.create(
        { description: 'bpay consumer', metadata: { bpay_customer_ref: customerRef } },
        { idempotencyKey: `bpay-customer:${customerRef}` },
      );
      id = created.id;
    }
    if (customers.size >= 10_000) customers.clear();
    customers.set(customerRef, id);
    return id;
  }

  return customerFor;
}

/** The customer a saved payment method belongs to, if any: such a method can only be charged with its customer. */
export async function customerOfMethod(stripe: Stripe, token: string): Promise<string | undefined> {
  const pm = await stripe.paymentMethods.retrieve(token);
  return typeof pm.customer === 'string' ? pm.customer : pm.customer?.id;
}
