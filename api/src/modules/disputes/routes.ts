import { Elysia, t } from 'elysia';
import { parseDecimal } from '@bpay/db/money';
import type { AppDeps } from '../../deps';
import { AppError } from '../../errors';
import { clientAddress } from '../../lib/request-context';
import { errors, sharedModels } from '../../models';
import { adminAuthPlugin } from '../../plugins/admin-auth';
import { idempotentResponse, runIdempotent } from '../../plugins/idempotency';
import { closeSandboxDispute, DISPUTE_REASONS, openSandboxDispute } from './sandbox';

const ADMIN_SECURITY = [{ adminToken: [] }];

export const DisputeModel = t.Object(
  {
    id: t.String({ examples: ['dsp_5d1f0a9e2c7b4a3f8e6d1c0b'] }),
    shareId: t.String({ description: 'The funding share disputed (one source’s part of a transaction)' }),
    transactionId: t.String({ description: 'The transaction (collection) the share belongs to' }),
    userId: t.String(),
    vendor: t.UnionEnum(['simulated', 'stripe']),
    vendorDisputeId: t.String({ description: "The processor's dispute id (Stripe's dp_…, the simulator's sim_dp_…)" }),
    amount: t.String({ description: 'What the dispute took back, in dollars', examples: ['60.00'] }),
    reason: t.String({ description: "The issuer's reason (Stripe's codes: fraudulent, product_not_received, …)" }),
    status: t.UnionEnum(['open', 'won', 'lost'], {
      description: 'open: the amount is owed and new bcards are refused until it is resolved; won: bpay got it back, all reversed; lost: it stays owed',
    }),
    vendorStatus: t.String({ description: "The processor's own status as last heard" }),
    refundedBefore: t.String({ description: 'What of the share had already been refunded to the card when the dispute opened, in dollars' }),
    openedAt: t.String({ format: 'date-time' }),
    closedAt: t.Union([t.String({ format: 'date-time' }), t.Null()]),
  },
  { description: 'A dispute (chargeback) of a funding share' },
);

const OpenBody = t.Object(
  {
    shareId: t.String({ minLength: 1, maxLength: 100, description: 'The captured (or since refunded) share to dispute' }),
    reason: t.UnionEnum([...DISPUTE_REASONS], { description: "The issuer's reason, in Stripe's codes", default: undefined }),
    amount: t.Optional(
      t.String({
        pattern: '^\\d{1,9}(\\.\\d{1,2})?$',
        description: 'Dollars; default: all of the share (less its other disputes). At most that.',
        error: 'amount must be a positive dollar amount with at most 2 decimals.',
      }),
    ),
  },
  { examples: [{ shareId: 'shr_5d1f0a9e2c7b4a3f8e6d1c0b', reason: 'fraudulent', amount: '60.00' }] },
);

const CloseBody = t.Object(
  { outcome: t.UnionEnum(['won', 'lost'], { description: 'won: the issuer gives the money back to bpay; lost: the card keeps it', default: undefined }) },
  { examples: [{ outcome: 'won' }] },
);

const IdempotencyKey = t.Object({
  'idempotency-key': t.Optional(t.String({ description: 'Makes a retried POST safe: the first answer is replayed for 24 hours.' })),
});

/** The simulator's disputes (sandbox.ts): an admin plays the card issuer. Audited by the service. */
export function disputeSandboxRoutes(deps: AppDeps) {
  const idem = { db: deps.db, clock: deps.clock, secret: deps.idempotencySecret };
  return new Elysia({ prefix: '/api/admin/sandbox', tags: ['Admin'] })
    .use(sharedModels)
    .use(adminAuthPlugin(deps))
    .post(
      '/disputes',
      async ({ admin, body, headers, request }) => {
        const outcome = await runIdempotent(
          idem,
          { scope: `admin:${admin.id}`, key: headers['idempotency-key'] ?? null, method: request.method, path: new URL(request.url).pathname, body },
          async () => {
            const amountCents = body.amount === undefined ? undefined : parseDecimal(body.amount);
            if (amountCents === null || (amountCents !== undefined && amountCents <= 0)) {
              throw new AppError('validation_error', 'amount must be a positive dollar amount with at most 2 decimals.', 'amount');
            }
            const dispute = await openSandboxDispute(
              deps,
              { adminId: admin.id, ip: clientAddress(request, deps.trustProxy) },
              { shareId: body.shareId, reason: body.reason, amountCents },
            );
            return { status: 201, body: dispute };
          },
        );
        return idempotentResponse(outcome);
      },
      {
        admin: true,
        parse: 'json',
        headers: IdempotencyKey,
        body: OpenBody,
        response: { 201: DisputeModel, ...errors(400, 401, 404, 409, 415) },
        detail: {
          summary: 'Simulator: open a dispute (chargeback) of a funding share',
          description:
            "Plays the card issuer for a share charged through the simulated processor: the amount goes back to the card " +
            "and is owed by the consumer (ledger share.disputed), the consumer is told, and new bcards are refused " +
            '(account_restricted) until it is resolved. Applied through the same service as Stripe’s charge.dispute.* ' +
            'events. 409 share_not_disputable when the share is on Stripe (its disputes come from Stripe), was never ' +
            'charged (held, voided, declined), a bank account’s debit (its bank’s return is its dispute), or is disputed in full; 400 when amount is more ' +
            'than the share can give. Audited.',
          security: ADMIN_SECURITY,
        },
      },
    )
    .post(
      '/disputes/:id/close',
      async ({ admin, params, body, request }) =>
        closeSandboxDispute(deps, { adminId: admin.id, ip: clientAddress(request, deps.trustProxy) }, params.id, body.outcome),
      {
        admin: true,
        parse: 'json',
        params: t.Object({ id: t.String({ description: 'The dispute (dsp_…)' }) }),
        body: CloseBody,
        response: { 200: DisputeModel, ...errors(400, 401, 404, 409, 415) },
        detail: {
          summary: 'Simulator: close an open dispute, won or lost',
          description:
            'won: the issuer gave the money back to bpay: everything the dispute did is reversed (ledger ' +
            'share.dispute_won) and the restriction lifts when nothing else is owed. lost: the card keeps it and the ' +
            'consumer owes it until repaid. The consumer is told either way. A second close is refused (409 ' +
            'dispute_closed), so a retry never moves money twice; 409 share_not_disputable for a Stripe dispute. Audited.',
          security: ADMIN_SECURITY,
        },
      },
    );
}
