import { Elysia, t } from 'elysia';
import type { AppDeps } from '../../deps';
import { clientAddress } from '../../lib/request-context';
import { errors, IdempotencyHeader, sharedModels } from '../../models';
import { idempotentResponse, runIdempotent } from '../../plugins/idempotency';
import { adminAuthPlugin } from '../../plugins/admin-auth';
import { AdminPayableModel, AdminReceivableModel, PayableSettlementModel, SettlePayableBody, WaiveBody, WaiverModel } from '../receivables/model';
import { listPayables, settlePayable } from '../receivables/payables';
import { listReceivables, waiveReceivable } from '../receivables/admin';
import { IdParams, PageQuery } from './model';
import { ADMIN_SECURITY, PAGE_DOC, sendPage } from './routes';
import { adminPageLimit } from './users';

/** Receivables in the back office (issue 26): who owes bpay, and waiving what they owe (audited, with a reason). */
export function adminReceivableRoutes(deps: AppDeps) {
  const doc = (summary: string, description?: string) => ({ summary, ...(description ? { description } : {}), security: ADMIN_SECURITY });
  return new Elysia({ prefix: '/api/admin', tags: ['Admin'] })
    .use(sharedModels)
    .use(adminAuthPlugin(deps))
    .get(
      '/receivables',
      async ({ query, set }) => sendPage(await listReceivables(deps.db, { cursor: query.cursor ?? null, limit: adminPageLimit(query.limit) }), set.headers),
      {
        admin: true,
        query: PageQuery,
        response: { 200: t.Array(AdminReceivableModel), ...errors(400, 401) },
        detail: doc(
          'Users who owe bpay (returned bank debits after use, disputed shares), newest account first',
          `owed is the ledger account receivable:<user>; underDispute the part under open disputes, which cannot be waived. ${PAGE_DOC}`,
        ),
      },
    )
    .post(
      '/users/:id/receivable/waive',
      async ({ admin, request, params, body, headers }) => {
        // A retried waiver (a double click, a client's retry) with the same Idempotency-Key forgives once.
        const outcome = await runIdempotent(
          { db: deps.db, clock: deps.clock, secret: deps.idempotencySecret },
          { scope: `admin:${admin.id}`, key: headers['idempotency-key'] ?? null, method: 'POST', path: new URL(request.url).pathname, body },
          async () => ({
            status: 201,
            body: await waiveReceivable(deps, { adminId: admin.id, ip: clientAddress(request, deps.trustProxy) }, params.id, body),
          }),
        );
        return idempotentResponse(outcome);
      },
      {
        admin: true,
        headers: IdempotencyHeader,
        params: IdParams,
        body: WaiveBody,
        parse: 'json',
        response: { 201: WaiverModel, ...errors(400, 401, 404, 409, 415) },
        detail: doc(
          "Forgive all or part of what a user owes, with a reason",
          'At most what is owed outside open disputes (400 waiver_exceeds_owed: resolve the dispute first). The reason (3 to ' +
            '500 characters, trimmed) is kept, audited and told to the user. Ledger: receivable +amount, bpay:written_off ' +
            '-amount. Once nothing is owed the user can create bcards again. An Idempotency-Key header makes a retry safe: ' +
            'the first waiver is answered again, never a second one.',
        ),
      },
    )
    .get(
      '/payables',
      async ({ query, set }) => sendPage(await listPayables(deps.db, { cursor: query.cursor ?? null, limit: adminPageLimit(query.limit) }), set.headers),
      {
        admin: true,
        query: PageQuery,
        response: { 200: t.Array(AdminPayableModel), ...errors(400, 401) },
        detail: doc(
          'Users bpay owes (refunds the processor failed, money due back after a debt was settled), newest account first',
          `owedToUser is the ledger account payable:<user> when above zero. ${PAGE_DOC}`,
        ),
      },
    )
    .post(
      '/users/:id/payable/settle',
      async ({ admin, request, params, body, headers }) => {
        // A retried settlement (a double click, a client's retry) with the same Idempotency-Key pays out once.
        const outcome = await runIdempotent(
          { db: deps.db, clock: deps.clock, secret: deps.idempotencySecret },
          { scope: `admin:${admin.id}`, key: headers['idempotency-key'] ?? null, method: 'POST', path: new URL(request.url).pathname, body },
          async () => ({
            status: 201,
            body: await settlePayable(deps, { adminId: admin.id, ip: clientAddress(request, deps.trustProxy) }, params.id, body),
          }),
        );
        return idempotentResponse(outcome);
      },
      {
        admin: true,
        headers: IdempotencyHeader,
        params: IdParams,
        body: SettlePayableBody,
        parse: 'json',
        response: { 201: PayableSettlementModel, ...errors(400, 401, 404, 409, 415) },
        detail: doc(
          'Record that bpay paid a user what it owes them, another way',
          "method 'paid_outside': support paid the user outside the card processor (a bank transfer, a cheque); this " +
            'records it. At most what bpay owes the user now (400 payable_settle_exceeds_owed). The reason (3 to 500 ' +
            'characters, trimmed) is audited and told to the user. Ledger: payable:<user> -amount, bpay:payouts +amount. ' +
            'An Idempotency-Key header makes a retry safe: the first settlement is answered again, never a second one.',
        ),
      },
    );
}
