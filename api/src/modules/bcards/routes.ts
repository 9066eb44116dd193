import { Elysia, t } from 'elysia';
import type { AppDeps } from '../../deps';
import { clientAddress } from '../../lib/request-context';
import { errors, SESSION_SECURITY, sharedModels } from '../../models';
import { idempotentResponse, runIdempotent } from '../../plugins/idempotency';
import { sessionPlugin } from '../../plugins/session';
import { IdempotencyHeader } from '../funding-sources/routes';
import { BcardModel, CheckoutDetailsModel, CreateBcardBody, PaymentResultModel, ProcessPaymentBody } from './model';
import { cancelBcard, createBcard, listBcards, parseAmount, parseFixedAmount, processPayment, revealBcard } from './service';

export function bcardRoutes(deps: AppDeps) {
  const idem = { db: deps.db, clock: deps.clock, secret: deps.idempotencySecret };
  return new Elysia({ tags: ['bcards'], detail: { security: SESSION_SECURITY } })
    .use(sharedModels)
    .use(sessionPlugin(deps))
    .get('/api/virtual-cards', ({ user }) => listBcards(deps, user.id), {
      auth: true,
      response: { 200: t.Array(BcardModel), ...errors(401) },
      detail: { summary: 'Your bcards, newest first' },
    })
    .post(
      '/api/virtual-cards',
      async ({ user, body, headers, request }) => {
        const key = headers['idempotency-key'] ?? null;
        const outcome = await runIdempotent(
          idem,
          { scope: `user:${user.id}`, key, method: 'POST', path: new URL(request.url).pathname, body },
          async (scopedKey) => ({
            status: 201,
            body: await createBcard(deps, user, {
              name: body.name,
              amountCents: parseAmount(body.balance, 'balance'),
              // Every entry with a percentage: split by percentage (amount is then only informative); otherwise
              // each entry's amount is its fixed share, fee included (the split configurator's fixed mode).
              splits: body.fundingSources.map((s, i) => ({
                fundingSourceId: s.fundingSourceId,
                percentage: s.percentage ?? null,
                fixedCents: s.percentage === undefined ? parseFixedAmount(s.amount, `fundingSources.${i}.amount`) : null,
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
        detail: { summary: "The bcard's full number, expiry and CVV (each reveal is recorded)" },
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
        },
      },
    );
}
