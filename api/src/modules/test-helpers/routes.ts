import { Elysia, t } from 'elysia';
import type { AppDeps } from '../../deps';
import { clientAddress } from '../../lib/request-context';
import { errors, sharedModels } from '../../models';
import { idempotentResponse, runIdempotent } from '../../plugins/idempotency';
import { merchantAuthPlugin } from '../../plugins/merchant-auth';
import { createTestBcard, withCardDetails, type StoredTestBcard } from './service';
import { MAX_ALLOCATIONS, MIN_ALLOCATIONS, SANDBOX_SOURCES } from './split';

const security = [{ secretKey: [] }];

export const TestBcardModel = t.Object(
  {
    id: t.String({ examples: ['bc_5d1f0a9e2c7b4a3f8e6d1c0b'] }),
    object: t.Literal('test_bcard'),
    number: t.String({ description: 'The full card number, shown only in this answer', examples: ['4000009123456789'] }),
    exp_month: t.Integer({ minimum: 1, maximum: 12 }),
    exp_year: t.Integer(),
    cvc: t.String({ examples: ['123'] }),
    limit: t.Integer({ description: 'Spending limit, in cents' }),
    currency: t.Literal('usd'),
    expires_at: t.Integer({ description: 'Unix seconds; an unused card is then deactivated' }),
    livemode: t.Literal(false),
  },
  { $id: '#/components/schemas/TestBcard' },
);

const TestBcardBody = t.Object(
  {
    amount: t.Number({
      multipleOf: 1,
      minimum: 50,
      maximum: 99_999_999,
      description: 'The spending limit in cents (50 to 99999999)',
      error: 'amount must be an integer number of cents from 50 to 99999999.',
    }),
    currency: t.Optional(t.String({ pattern: '^(usd|USD)$', error: 'currency must be usd.', examples: ['usd'] })),
    // Checked by the service (split.ts parseAllocations), so that a refusal names `allocations[2][source]` as Stripe does.
    allocations: t.Optional(
      t.Unknown({
        description:
          `${MIN_ALLOCATIONS} to ${MAX_ALLOCATIONS} shares \`{ amount, source }\` whose amounts (cents) add up to \`amount\`; ` +
          '`source` is a magic test source (see the operation\'s description).',
        examples: [[{ amount: 1500, source: 'tok_visa' }, { amount: 1000, source: 'tok_refundFail' }]],
      }),
    ),
  },
  { examples: [{ amount: 2500, currency: 'usd' }, { amount: 2500, allocations: [{ amount: 1500, source: 'tok_visa' }, { amount: 1000, source: 'tok_refundFail' }] }] },
);

/** The magic test sources as a Markdown table (the route's description; README "Sandbox" has the same). */
const sourcesTable = [
  '| source | what it does |',
  '|---|---|',
  ...Object.entries(SANDBOX_SOURCES).map(([name, s]) => `| \`${name}\` | ${s.does} |`),
].join('\n');

const IdempotencyKey = t.Object({
  'idempotency-key': t.Optional(t.String({ description: 'Makes a retried POST safe: the first answer is replayed for 24 hours.' })),
});

/** Sandbox-only helpers that make test objects (`bpay trigger`). */
export function testHelperRoutes(deps: AppDeps) {
  const idem = { db: deps.db, clock: deps.clock, secret: deps.idempotencySecret };
  return new Elysia({ prefix: '/api/v1/test_helpers', tags: ['Test helpers'] })
    .use(sharedModels)
    .use(merchantAuthPlugin(deps))
    .post(
      '/bcards',
      async ({ merchant, livemode, body, headers, request }) => {
        const outcome = await runIdempotent(
          idem,
          {
            scope: `merchant:${merchant.id}`,
            key: headers['idempotency-key'] ?? null,
            method: request.method,
            path: new URL(request.url).pathname,
            body,
          },
          async () => ({ status: 200, body: await createTestBcard(deps, merchant, livemode, body) }),
        );
        // The stored answer holds no number or CVC: they are added here, to the first answer and to a replay alike.
        if (outcome.status !== 200) return idempotentResponse(outcome);
        const full = await withCardDetails(deps, merchant, outcome.body as StoredTestBcard, {
          ip: clientAddress(request, deps.trustProxy),
          userAgent: request.headers.get('user-agent'),
        });
        return idempotentResponse({ ...outcome, body: full });
      },
      {
        merchant: true,
        parse: 'json',
        headers: IdempotencyKey,
        body: TestBcardBody,
        response: { 200: TestBcardModel, ...errors(400, 401, 402, 403, 409, 415, 429, 503) },
        detail: {
          summary: 'Create a sandbox test bcard',
          description:
            'Sandbox keys only (a production key answers 400 `test_mode_only`). Issues a fresh single-use bcard of the ' +
            'built-in simulated processor with `amount` cents on it, locked to your merchant account. Confirm a payment ' +
            'intent with it (`payment_method` = its id, or `payment_method_data.card` with its number, expiry and CVC) ' +
            'and it pays exactly as a consumer\'s bcard would. The number and CVC are in this answer only (and in a ' +
            'replay under the same Idempotency-Key). Unused, it expires like any bcard. It is funded from sandbox ' +
            'test funds, never from anyone\'s cards.\n\n' +
            `With \`allocations\` (${MIN_ALLOCATIONS} to ${MAX_ALLOCATIONS} shares \`{ amount, source }\` adding up to \`amount\`) the bcard is a ` +
            'split collected exactly as a consumer\'s bcard is, from simulated test cards that charge nobody: every share is held, ' +
            'then all are captured and the card issued; a failure releases every share. The payment it makes lists the shares as ' +
            'its Charge\'s `allocations`. A refused share answers 402 naming `allocations[i][source]`. Magic test sources (sandbox ' +
            'only: no card number, a consumer\'s or Stripe\'s test numbers, behaves like them):\n\n' +
            sourcesTable,
          security,
        },
      },
    );
}
