import { expect, test } from 'bun:test';
import type { paths } from '@bpay/sdk/schema';
import type { DemoBenefits, DemoFundingSource, DemoIntent, PaidBcard, PublicIntent } from './api';

/*
 * The demos share the dashboard's cache keys for the funding sources and the benefits, so their types must be what
 * those endpoints answer: exactly the generated OpenAPI types. A hand-written type (an optional or nullable fee, a
 * missing field) makes `Same` false and this file fail the typecheck.
 */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Json<R> = R extends { content: { 'application/json': infer B } } ? B : never;

type SourcesAnswer = Json<paths['/api/funding-sources']['get']['responses'][200]>;
type BenefitsAnswer = Json<paths['/api/subscription/benefits']['get']['responses'][200]>;
type IntentAnswer = Json<paths['/api/demo/checkout-intent']['post']['responses'][201]>;
type ReadAnswer = Json<paths['/api/checkout/payment_intents/{id}']['get']['responses'][200]>;
type PayAnswerJson = Json<paths['/api/checkout/payment_intents/{id}/pay']['post']['responses'][200]>;

test("the demos' answer types are the endpoints' own (checked by the typecheck)", () => {
  const same: [
    Same<DemoFundingSource[], SourcesAnswer>,
    Same<DemoBenefits, BenefitsAnswer>,
    Same<DemoIntent, IntentAnswer>,
    Same<PublicIntent, ReadAnswer>,
    Same<PaidBcard, PayAnswerJson['bcard']>,
  ] = [true, true, true, true, true];
  expect(same.every(Boolean)).toBe(true);
});
