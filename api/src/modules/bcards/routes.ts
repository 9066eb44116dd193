import { Elysia, t } from 'elysia';
import type { AppDeps } from '../../deps';
import { clientAddress } from '../../lib/request-context';
import { errors, IdempotencyHeader, SESSION_SECURITY, sharedModels } from '../../models';
import { idempotentResponse, runIdempotent } from '../../plugins/idempotency';
import { sessionPlugin } from '../../plugins/session';
import { BcardModel, CheckoutDetailsModel, CollectionProgressModel, CreateBcardBody, PaymentResultModel, ProcessPaymentBody } from './model';
import { cancelBcard, createBcard, processPayment, revealBcard } from './service';
import { createBcardInput, parseAmount, parseFixedAmount } from './plan';
import { BCARDS_PAGE_DEFAULT, BCARDS_PAGE_MAX, listBcards } from './views';
import { invalid } from '../../errors';
import { NEXT_CURSOR_HEADER } from '../../lib/cursor';
import { collectionProgress } from './progress';

export function bcardRoutes(deps: AppDeps) {
  const idem = { db: deps.db, clock: deps.clock, secret: deps.idempotencySecret };
  return new Elysia({ tags: ['bcards'], detail: { security: SESSION_SECURITY } })
    .use(sharedModels)
    .use(sessionPlugin(deps))
    .get(
      '/api/virtual-cards',
      async ({ user, query, set }) => {
        const limit = query.limit ?? BCARDS_PAGE_DEFAULT;
        if (!Number.isInteger(limit) || limit < 1 || limit > BCARDS_PAGE_MAX) {
          throw invalid('limit', `limit must be between 1 and ${BCARDS_PAGE_MAX}.`);
        }
        const page = await listBcards(deps, user.id, { limit, cursor: query.cursor ?? null });
        if (page.nextCursor) set.headers[NEXT_CURSOR_HEADER] = page.nextCursor;
        return page.data;
      },
      {
        auth: true,
        query: t.Object({
          // The range is checked in the handler: a bound failed inside t.Numeric is reported without the parameter's name.
          limit: t.Optional(t.Numeric({ error: `limit must be between 1 and ${BCARDS_PAGE_MAX}.` })),
          cursor: t.Optional(t.String({ maxLength: 200 })),
        }),
        response: { 200: t.Array(BcardModel), ...errors(400, 401) },
        detail: {
          summary: 'Your bcards, newest first',
          description: `The ${BCARDS_PAGE_DEFAULT} newest unless \`limit\` says otherwise (${BCARDS_PAGE_MAX} at most). When more exist, the ${NEXT_CURSOR_HEADER} header holds the cursor for the next page.`,
        },
      },
    )
    .post(
      '/api/virtual-cards',
      async ({ user, body, headers, request }) => {
        const key = headers['idempotency-key'] ?? null;
        const outcome = await runIdempotent(
          idem,
          { scope: `user:${user.id}`, key, method: 'POST', path: new URL(request.url).pathname, body },
          async (scopedKey) => ({
            status: 201,
            body: await createBcard(deps, user, { ...createBcardInput(body), idempotencyKey: scopedKey }),
          }),
        );
        return idempotentResponse(outcome);
      },
      {
        auth: true,
        parse: 'json',
        body: CreateBcardBody,
        headers: IdempotencyHeader,
        response: { 201: BcardModel, ...errors(400, 401, 402, 403, 404, 409, 415, 503) },
        detail: {
          summary: 'Collect a split from your sources and issue a bcard (all or nothing)',
          description:
            'Every share is held; only when all hold are they captured and the bcard issued, limited to the amount. ' +
            'On a shortfall the error is card_error/insufficient_funds with details {totalRequired, totalAvailable, ' +
            'insufficientSources[{name, requiredAmount, availableBalance}]}; on a decline, card_declined with ' +
            'details.declines. Nothing stays held after a failure.',
        },
      },
    )
    .get(
      '/api/virtual-cards/collection-progress',
      ({ user, query, set }) => {
        set.headers['cache-control'] = 'no-store';
        return collectionProgress(deps, user.id, query.key);
      },
      {
        auth: true,
        query: t.Object({ key: t.String({ maxLength: 255, error: 'key must be the Idempotency-Key sent with the request.' }) }),
        response: { 200: CollectionProgressModel, ...errors(400, 401) },
        detail: {
          summary: 'How far a Create bcard request has got, by the Idempotency-Key it was sent with',
          description:
            'Only your own requests: any other key reads as not_started. stage is what the server has recorded: ' +
            'holding (every share being held), capturing (all held, being captured), completed or failed; each share ' +
            "has its own status (pending, held, captured, declined, voided, refunded). Poll it while the POST is open.",
        },
      },
    )
    .post(
      '/api/virtual-cards/:id/cancel',
      async ({ user, params, headers, request }) => {
        // Refunds move money: a retried cancel with the same key answers what the first one answered.
        const outcome = await runIdempotent(
          idem,
          { scope: `user:${user.id}`, key: headers['idempotency-key'] ?? null, method: 'POST', path: new URL(request.url).pathname, body: {} },
          async () => ({ status: 200, body: await cancelBcard(deps, user.id, params.id) }),
        );
        return idempotentResponse(outcome);
      },
      {
        auth: true,
        params: t.Object({ id: t.String() }),
        headers: IdempotencyHeader,
        response: { 200: BcardModel, ...errors(400, 401, 403, 404, 409) },
        detail: {
          summary: 'Cancel an unused bcard: it is deactivated and every share refunded',
          description:
            "A bcard authorized for a merchant's manual-capture payment answers 409 bcard_authorized: only the merchant's " +
            'capture or cancel of that payment releases it (bpay cancels it automatically after 7 days).',
        },
      },
    )
    .get(
      '/api/virtual-cards/:id/checkout-details',
      ({ user, params, request, set }) => {
        set.headers['cache-control'] = 'no-store';
        return revealBcard(deps, user.id, params.id, {
          ip: clientAddress(request, deps.trustProxy),
          userAgent: request.headers.get('user-agent'),
        });
      },
      {
        auth: true,
        params: t.Object({ id: t.String() }),
        response: { 200: CheckoutDetailsModel, ...errors(401, 404, 409) },
        detail: {
          summary: "The bcard's full number, expiry and CVV (each reveal is recorded)",
          description:
            "The full card number, expiry and CVV of one of the signed-in user's bcards, to pay with at a " +
            "merchant. Each reveal is recorded with its address and browser; another user's bcard is 404.",
        },
      },
    )
    .post(
      '/api/process-payment',
      async ({ user, body, headers, request }) => {
        const key = headers['idempotency-key'] ?? null;
        const outcome = await runIdempotent(
          idem,
          { scope: `user:${user.id}`, key, method: 'POST', path: new URL(request.url).pathname, body },
          async (scopedKey) => ({
            status: 200,
            body: await processPayment(deps, user, {
              amountCents: parseAmount(body.amount, 'amount'),
              merchant: body.merchant.trim(),
              description: body.description?.trim() || null,
              virtualCardId: body.virtualCardId ?? null,
              splits: (body.splits ?? []).map((s, i) => ({
                fundingSourceId: s.fundingSourceId,
                percentage: s.percentage ?? null,
                fixedCents: parseFixedAmount(s.fixedAmount, `splits.${i}.fixedAmount`),
              })),
              idempotencyKey: scopedKey,
            }),
          }),
        );
        return idempotentResponse(outcome);
      },
      {
        auth: true,
        parse: 'json',
        body: ProcessPaymentBody,
        headers: IdempotencyHeader,
        response: { 200: PaymentResultModel, ...errors(400, 401, 402, 403, 404, 409, 415, 503) },
        detail: {
          summary: 'Pay a merchant: with the given bcard, or by collecting the splits into a new one',
          description:
            'Pays a merchant for the signed-in user: with the bcard named, or by first collecting the splits from ' +
            "the user's funding sources into a new bcard. Moves money; honours an Idempotency-Key.",
        },
      },
    );
}
