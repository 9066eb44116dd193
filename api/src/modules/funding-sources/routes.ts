import { Elysia, t } from 'elysia';
import type { AppDeps } from '../../deps';
import { clientAddress } from '../../lib/request-context';
import { errors, IdempotencyHeader, SESSION_SECURITY, sharedModels } from '../../models';
import { idempotentResponse, runIdempotent } from '../../plugins/idempotency';
import { sessionPlugin } from '../../plugins/session';
import {
  CARD_ATTEMPTS_PER_ACCOUNT_PER_HOUR,
  CARD_ATTEMPTS_PER_ADDRESS_PER_HOUR,
  CARD_LOCK_MS,
  DECLINE_WEIGHT,
  DECLINES_BEFORE_LOCK,
} from './attempts';
import { createBankAccount, getBankStanding, verifyMicrodeposits } from './bank-accounts';
import {
  CreateBankAccountBody,
  CreateFundingSourceBody,
  MicrodepositsBody,
  OwedModel,
  FundingSourceModel,
  RequiresActionModel,
  UpdateFundingSourceBody,
  VerificationCodeBody,
} from './model';
import {
  completeVerification,
  createFundingSource,
  deleteFundingSource,
  listFundingSources,
  updateFundingSource,
  BANK_VERIFICATION_MAX_ATTEMPTS,
} from './service';

export function fundingSourceRoutes(deps: AppDeps) {
  const idem = { db: deps.db, clock: deps.clock, secret: deps.idempotencySecret };
  return new Elysia({ prefix: '/api/funding-sources', tags: ['Funding sources'], detail: { security: SESSION_SECURITY } })
    .use(sharedModels)
    .use(sessionPlugin(deps))
    .get('', ({ user }) => listFundingSources(deps, user.id), {
      auth: true,
      response: { 200: t.Array(FundingSourceModel), ...errors(401) },
      detail: {
        summary: 'Your funding sources, with what is available on each',
        description:
          "The signed-in user's funding sources (cards and bank accounts, by token and last 4 digits only), with " +
          'what is available on each. Read only.',
      },
    })
    .get('/bank-standing', ({ user }) => getBankStanding(deps, user.id), {
      auth: true,
      response: { 200: OwedModel, ...errors(401) },
      detail: {
        summary: 'What you owe for returned bank debits, and your bank debits still settling',
        description:
          'A bank debit returned after its bcard was used leaves the amount owed, and no new bcards can be created ' +
          "(restricted) until it is repaid. Bank debits still settling count against the plan's cap.",
      },
    })
    .post(
      '',
      async ({ user, body, headers, request }) => {
        const key = headers['idempotency-key'] ?? null;
        const outcome = await runIdempotent(
          idem,
          { scope: `user:${user.id}`, key, method: 'POST', path: new URL(request.url).pathname, body },
          (scopedKey) => createFundingSource(deps, user, body, scopedKey, clientAddress(request, deps.trustProxy)),
        );
        return idempotentResponse(outcome);
      },
      {
        auth: true,
        parse: 'json',
        body: CreateFundingSourceBody,
        headers: IdempotencyHeader,
        response: { 201: FundingSourceModel, 202: RequiresActionModel, ...errors(400, 401, 402, 403, 409, 415, 429, 503) },
        detail: {
          summary: 'Add a card: verified with a $1.00 authorization hold that is released',
          description:
            'Only the processor token, brand, last 4, expiry and name are stored. A card that needs 3-D Secure ' +
            'answers 202 with a verificationId to complete. Against card testing, each card sent to the processor ' +
            `(and each 3-D Secure completion) is an attempt: ${CARD_ATTEMPTS_PER_ACCOUNT_PER_HOUR} an hour per account ` +
            `and ${CARD_ATTEMPTS_PER_ADDRESS_PER_HOUR} per address, a declined one counting ${DECLINE_WEIGHT} (429 ` +
            `card_attempts_exceeded); ${DECLINES_BEFORE_LOCK} declines within an hour lock adding cards for ` +
            `${CARD_LOCK_MS / 3_600_000} hours (429 card_adding_locked). Both answer Retry-After.`,
        },
      },
    )
    .post(
      '/bank-accounts',
      async ({ user, body, headers, request }) => {
        const key = headers['idempotency-key'] ?? null;
        const mandate = {
          ipAddress: clientAddress(request, deps.trustProxy),
          userAgent: request.headers.get('user-agent') ?? 'unknown',
        };
        const outcome = await runIdempotent(
          idem,
          { scope: `user:${user.id}`, key, method: 'POST', path: new URL(request.url).pathname, body },
          async (scopedKey) => ({ status: 201, body: await createBankAccount(deps, user, body, scopedKey, mandate) }),
        );
        return idempotentResponse(outcome);
      },
      {
        auth: true,
        parse: 'json',
        body: CreateBankAccountBody,
        headers: IdempotencyHeader,
        response: { 201: FundingSourceModel, ...errors(400, 401, 402, 403, 409, 415, 503) },
        detail: {
          summary: 'Link a US bank account: verified with two micro-deposits you confirm',
          description:
            'The routing number must pass the ABA checksum and the account number be 4 to 17 digits; the holder ' +
            'name follows the rule for cards (your own name until your identity is verified). The account number ' +
            'goes to the processor and is never stored. The source answers verificationStatus pending: confirm ' +
            'the two micro-deposits at POST /api/funding-sources/{id}/verify-microdeposits. Linking it authorizes ' +
            'bpay to debit the account for the bcards you fund with it (the ACH mandate: your address and browser ' +
            'are recorded with the processor).',
        },
      },
    )
    .post(
      '/:id/verify-microdeposits',
      ({ user, body, params }) => verifyMicrodeposits(deps, user, params.id, body.amounts),
      {
        auth: true,
        parse: 'json',
        body: MicrodepositsBody,
        params: t.Object({ id: t.String() }),
        response: { 200: FundingSourceModel, ...errors(400, 401, 404, 409, 415, 503) },
        detail: {
          summary: 'Confirm the two micro-deposits sent to a bank account',
          description: `Amounts in dollars ("0.32") or cents ("32"), in either order. ${BANK_VERIFICATION_MAX_ATTEMPTS} wrong answers fail the verification.`,
        },
      },
    )
    .post(
      '/verifications/:id',
      async ({ user, body, params, set, request }) => {
        set.status = 201;
        return completeVerification(deps, user, params.id, body.code, clientAddress(request, deps.trustProxy));
      },
      {
        auth: true,
        parse: 'json',
        body: VerificationCodeBody,
        params: t.Object({ id: t.String() }),
        response: { 201: FundingSourceModel, ...errors(400, 401, 402, 404, 409, 415, 429, 503) },
        detail: {
          summary: 'Answer the 3-D Secure challenge of a card being added',
          description:
            'Completes adding a card that asked for 3-D Secure: the code answers the challenge and, when it is ' +
            'right, the card is added (201). Only the signed-in user who started it; wrong attempts are rate ' +
            'limited (429).',
        },
      },
    )
    .patch('/:id', ({ user, body, params }) => updateFundingSource(deps, user, params.id, body), {
      auth: true,
      parse: 'json',
      body: UpdateFundingSourceBody,
      params: t.Object({ id: t.String() }),
      response: { 200: FundingSourceModel, ...errors(400, 401, 404, 415) },
      detail: {
        summary: 'Rename, change the default split, or pause a funding source',
        description:
          "Renames one of the signed-in user's funding sources, changes its share of the default split, or pauses " +
          "it. No money moves; another user's is 404.",
      },
    })
    .delete('/:id', ({ user, params }) => deleteFundingSource(deps, user, params.id), {
      auth: true,
      params: t.Object({ id: t.String() }),
      response: { 200: t.Object({ id: t.String(), deleted: t.Literal(true) }), ...errors(401, 404, 409) },
      detail: {
        summary: 'Remove a funding source (refused while it backs an unexpired bcard)',
        description:
          "Removes one of the signed-in user's funding sources. Refused with 409 while it backs an unexpired " +
          "bcard; another user's is 404.",
      },
    });
}
