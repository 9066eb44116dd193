import { Elysia, t } from 'elysia';
import type { AppDeps } from '../../deps';
import { errors, sharedModels } from '../../models';
import { clientAddress } from '../../lib/request-context';
import { NETWORK_BAD_DETAILS_PER_ADDRESS, NETWORK_PER_ADDRESS, NETWORK_PER_CARD, simulateNetworkAuthorization } from './network';
import { DECLINE_REASONS } from './decide';

const AuthorizationBody = t.Object({
  card_number: t.String({ minLength: 12, maxLength: 23, error: 'card_number must be the card number (12 to 19 digits).' }),
  exp_month: t.Integer({ minimum: 1, maximum: 12, error: 'exp_month must be a month, 1 to 12.' }),
  exp_year: t.Integer({ minimum: 2000, maximum: 2200, error: 'exp_year must be a four-digit year.' }),
  cvc: t.String({ pattern: '^[0-9]{3,4}$', error: 'cvc must be 3 or 4 digits.' }),
  amount: t.Integer({ minimum: 1, maximum: 100_000_000, error: 'amount must be a whole number of cents, 1 to 100000000.' }),
  currency: t.String({ pattern: '^[A-Za-z]{3}$', error: 'currency must be a three-letter ISO code, such as usd.' }),
  merchant: t.Object({
    name: t.String({ minLength: 1, maxLength: 100, pattern: '\\S', error: 'merchant.name must be the shop name, 1 to 100 characters.' }),
    url: t.String({ minLength: 1, maxLength: 2048, error: "merchant.url must be the shop's address." }),
    city: t.Optional(t.String({ maxLength: 100 })),
    category: t.Optional(t.String({ maxLength: 60 })),
  }, { additionalProperties: false }),
}, {
  examples: [
    {
      card_number: '4000 1234 5678 9010',
      exp_month: 12,
      exp_year: 2027,
      cvc: '123',
      amount: 4250,
      currency: 'usd',
      merchant: { name: 'Corner Shoes', url: 'https://corner-shoes.example/checkout', city: 'Springfield', category: 'shoe_stores' },
    },
  ],
});

const AuthorizationModel = t.Object({
  id: t.String(),
  object: t.Literal('issuing.authorization'),
  approved: t.Literal(true),
  amount: t.Integer(),
  currency: t.String(),
  status: t.Literal('closed'),
  merchant_data: t.Object({
    name: t.String(),
    city: t.Union([t.String(), t.Null()]),
    category: t.Union([t.String(), t.Null()]),
    url: t.String(),
  }),
});

/** The simulated card network's one call (see network.ts). No credentials: it is what a shop's processor sends. */
export function issuingNetworkRoutes(deps: AppDeps) {
  return new Elysia({ tags: ['Card network'] })
    .use(sharedModels)
    .post(
      '/api/simulator/authorizations',
      async ({ body, request, set }) => {
        set.headers['cache-control'] = 'no-store';
        set.status = 201;
        return simulateNetworkAuthorization(
          deps,
          {
            cardNumber: body.card_number,
            expMonth: body.exp_month,
            expYear: body.exp_year,
            cvc: body.cvc,
            amountCents: body.amount,
            currency: body.currency,
            merchant: { name: body.merchant.name.trim(), url: body.merchant.url, city: body.merchant.city?.trim() || null, category: body.merchant.category?.trim() || null },
          },
          clientAddress(request, deps.trustProxy),
        );
      },
      {
        parse: 'json',
        body: AuthorizationBody,
        response: { 201: AuthorizationModel, ...errors(400, 402, 404, 415, 429) },
        detail: {
          summary: "Charge a bcard through bpay's simulated card network (sandbox and demo installs)",
          description:
            "What a shop's card processor sends to bpay as the bcard's issuer: the card's number, expiry and CVC, the " +
            'amount in cents and the shop. Approved: 201 and the bcard is spent (single use); what it held beyond the ' +
            'amount goes back to its funding sources. Declined: 402 card_error/card_declined with decline_code one of ' +
            `${DECLINE_REASONS.join(', ')}. Three wrong CVCs or expiries close the bcard. Limited to ` +
            `${NETWORK_PER_ADDRESS.limit} an hour per address, ${NETWORK_PER_CARD.limit} an hour per card number, and ` +
            `${NETWORK_BAD_DETAILS_PER_ADDRESS.limit} wrong card details (number, CVC, expiry) an hour per address. ` +
            'Not there (404) when the install uses Stripe Issuing, whose network sends authorizations to POST /api/stripe/webhook.',
          security: [],
        },
      },
    );
}
