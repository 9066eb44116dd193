import { Elysia, t } from 'elysia';
import { eq } from 'drizzle-orm';
import { firstRow, schema } from '@bpay/db';
import type { AppDeps } from '../../deps';
import { AppError } from '../../errors';
import { wordsLanguage } from '../../lib/server-words';
import { errors, IdempotencyHeader, ScreenLanguage, SESSION_SECURITY, sharedModels } from '../../models';
import { idempotentResponse, runIdempotent } from '../../plugins/idempotency';
import { sessionPlugin } from '../../plugins/session';
import { ReceivablesModel, RepayBody, RepaymentModel } from './model';
import { repay } from './service';
import { receivablesOf, repaymentView } from './standing';

/** What the consumer owes bpay and why, and repaying it from a card (issue 26). */
export function receivableRoutes(deps: AppDeps) {
  const idem = { db: deps.db, clock: deps.clock, secret: deps.idempotencySecret };
  return new Elysia({ prefix: '/api/receivables', tags: ['Receivables'], detail: { security: SESSION_SECURITY } })
    .use(sharedModels)
    .use(sessionPlugin(deps))
    .get('', ({ user, query }) => receivablesOf(deps.db, user.id, query.language ?? wordsLanguage(user.language)), {
      auth: true,
      query: t.Object({ language: ScreenLanguage }),
      response: { 200: ReceivablesModel, ...errors(400, 401) },
      detail: {
        summary: 'What you owe bpay, why, and what you have repaid',
        description:
          'A bank debit returned after its bcard was used, or a funding share you disputed with your card issuer, leaves ' +
          'its amount owed; while anything is owed no new bcards can be created (restricted, 403 account_restricted). ' +
          'An open dispute is under review: its amount is not repayable until it is resolved. Repay the rest with ' +
          'POST /api/receivables/payments.',
      },
    })
    .post(
      '/payments',
      async ({ user, body, headers, request }) => {
        const key = headers['idempotency-key'] ?? null;
        if (key === null) {
          throw new AppError('invalid_idempotency_key', 'An Idempotency-Key header is required to repay what is owed.', 'Idempotency-Key');
        }
        const outcome = await runIdempotent(
          idem,
          { scope: `user:${user.id}`, key, method: 'POST', path: new URL(request.url).pathname, body },
          async (scopedKey) => {
            const payment = await repay(deps, user.id, { fundingSourceId: body.fundingSourceId, amount: body.amount, idempotencyKey: scopedKey! });
            const source = await firstRow(deps.db, schema.fundingSources, eq(schema.fundingSources.id, payment.fundingSourceId));
            return {
              status: 201,
              body: { payment: repaymentView(payment, source ?? null, wordsLanguage(user.language)), receivables: await receivablesOf(deps.db, user.id, wordsLanguage(user.language)) },
            };
          },
        );
        return idempotentResponse(outcome);
      },
      {
        auth: true,
        parse: 'json',
        headers: IdempotencyHeader,
        body: RepayBody,
        response: { 201: t.Object({ payment: RepaymentModel, receivables: ReceivablesModel }), ...errors(400, 401, 402, 404, 409, 415, 503) },
        detail: {
          summary: 'Repay what you owe, all or part, from one of your cards',
          description:
            'Held and captured through the card processor like a bcard share; the Idempotency-Key header is required (a ' +
            'retry with the same key never charges twice). The amount may be less than what is owed (partial) but not ' +
            'more than `repayable` (400 repayment_exceeds_owed, naming the amount). Only your own active cards: a bank ' +
            'account or a paused card is 400, another account’s source 404. A decline answers 402 with why and changes ' +
            'nothing. Once nothing is owed, new bcards can be created again at once.',
        },
      },
    );
}
