import { Elysia, t } from 'elysia';
import type { AppDeps } from '../../deps';
import { clientAddress } from '../../lib/request-context';
import { errors, IdempotencyHeader, PUBLIC_SECURITY, SESSION_SECURITY, sharedModels } from '../../models';
import { extensionAuthPlugin } from '../../plugins/extension-auth';
import { idempotentResponse, runIdempotent } from '../../plugins/idempotency';
import { sessionPlugin } from '../../plugins/session';
import { BcardModel, CollectionProgressModel } from '../bcards/model';
import { collectionProgress } from '../bcards/progress';
import { createBcardInput } from '../bcards/plan';
import { FundingSourceModel } from '../funding-sources/model';
import { listFundingSources } from '../funding-sources/service';
import {
  CreatePairingBody,
  ExchangePairingBody,
  ExtensionCheckoutDetailsModel,
  ExtensionCreateBcardBody,
  ExtensionMeModel,
  ExtensionTokenModel,
  IssuedTokenModel,
  PairingModel,
  RevokedTokenModel,
} from './model';
import { createExtensionBcard, revealExtensionBcard } from './service';
import {
  createPairing,
  describeToken,
  EXCHANGES_PER_ADDRESS_PER_HOUR,
  exchangePairing,
  listExtensionTokens,
  PAIRINGS_PER_USER_PER_HOUR,
  revokeExtensionToken,
} from './tokens';
import { currentTier } from '../subscription/service';

/** OpenAPI security of the extension's bearer routes (components.securitySchemes.extensionToken). */
export const EXTENSION_SECURITY = [{ extensionToken: [] as string[] }];

/**
 * The browser extension's API (issue 24 §2). Three kinds of route:
 * - the web app's, with the session cookie (and the cross-site check): make a pairing code, list and revoke tokens;
 * - the exchange, with no credential: the extension's background trades the code for its token;
 * - the extension's, with `Authorization: Bearer bpx_…` only (no cookie, no cross-site check: plugins/http.ts).
 */
export function extensionRoutes(deps: AppDeps) {
  const idem = { db: deps.db, clock: deps.clock, secret: deps.idempotencySecret };
  const meta = (request: Request) => ({ ip: clientAddress(request, deps.trustProxy), userAgent: request.headers.get('user-agent') });
  return (
    new Elysia({ tags: ['Browser extension'], detail: { security: EXTENSION_SECURITY } })
      .use(sharedModels)
      .use(sessionPlugin(deps))
      .use(extensionAuthPlugin(deps))
      // The web app's (session cookie).
      .post(
        '/api/extension/pairings',
        async ({ user, body, set }) => {
          set.status = 201;
          set.headers['cache-control'] = 'no-store';
          return createPairing(deps, user.id, body.label);
        },
        {
          auth: true,
          parse: 'json',
          body: CreatePairingBody,
          response: { 201: PairingModel, ...errors(400, 401, 403, 415, 429) },
          detail: {
            summary: 'A one-time code that connects a browser extension to your account',
            description:
              'Valid for 2 minutes and exchanged once (POST /api/extension/tokens). The connect page hands it to the ' +
              `extension on bpay's own origin. At most ${PAIRINGS_PER_USER_PER_HOUR} an hour.`,
            security: SESSION_SECURITY,
          },
        },
      )
      .get('/api/extension/tokens', ({ user }) => listExtensionTokens(deps, user.id), {
        auth: true,
        response: { 200: t.Array(ExtensionTokenModel), ...errors(401) },
        detail: {
          summary: 'Your connected browsers (active extension tokens), newest first',
          description:
            'The browsers connected to the signed-in account (active extension tokens), newest first, with their ' +
            'labels and expiry; the tokens themselves are never shown again. Read only; Settings revokes them.',
          security: SESSION_SECURITY,
        },
      })
      .delete('/api/extension/tokens/:id', ({ user, params }) => revokeExtensionToken(deps, user.id, params.id), {
        auth: true,
        params: t.Object({ id: t.String({ maxLength: 64 }) }),
        response: { 200: RevokedTokenModel, ...errors(401, 403, 404) },
        detail: {
          summary: 'Disconnect a browser: its extension token stops working at once',
          description: 'Revoking a token already revoked answers the same. Another user\'s token is "not found".',
          security: SESSION_SECURITY,
        },
      })
      // The exchange (no credential).
      .post(
        '/api/extension/tokens',
        async ({ body, request, set }) => {
          const issued = await exchangePairing(deps, body.code, clientAddress(request, deps.trustProxy));
          set.status = 201;
          set.headers['cache-control'] = 'no-store';
          return issued;
        },
        {
          parse: 'json',
          body: ExchangePairingBody,
          response: { 201: IssuedTokenModel, ...errors(400, 415, 429) },
          detail: {
            summary: "Exchange a pairing code for the extension's token (once)",
            description:
              'The token (bpx_…) is shown only in this answer and lasts 90 days; send it as Authorization: Bearer. ' +
              'An unknown or expired code is pairing_code_invalid, a code already exchanged pairing_code_used. ' +
              `At most ${EXCHANGES_PER_ADDRESS_PER_HOUR} exchanges an hour from one network.`,
            security: PUBLIC_SECURITY,
          },
        },
      )
      // The extension's (bearer token).
      .get('/api/extension/me', async ({ user, extensionToken }) => ({
        ...describeToken({ user, extensionToken }),
        feePercentage: (await currentTier(deps.db, user.id)).transactionFeeBps / 100,
      }), {
        extension: true,
        response: { 200: ExtensionMeModel, ...errors(401, 403) },
        detail: {
          summary: 'Which connected browser this token is, and whose account it acts for',
          description:
            'Which connected browser this token is (its label and expiry), the account it acts for, and the plan ' +
            "fee the popup's split must add. Needs the extension's token (bpx_); read only.",
        },
      })
      .get('/api/extension/funding-sources', ({ user }) => listFundingSources(deps, user.id), {
        extension: true,
        response: { 200: t.Array(FundingSourceModel), ...errors(401, 403) },
        detail: {
          summary: 'Your funding sources, as GET /api/funding-sources gives them',
          description:
            "The account's funding sources with what is available on each, exactly as GET /api/funding-sources " +
            "gives them, for the extension popup's split. Needs the extension's token (bpx_); read only.",
        },
      })
      .post(
        '/api/extension/bcards',
        async ({ user, extensionToken, body, headers, request }) => {
          const key = headers['idempotency-key'] ?? null;
          const outcome = await runIdempotent(
            idem,
            { scope: `user:${user.id}`, key, method: 'POST', path: new URL(request.url).pathname, body },
            async (scopedKey) => ({
              status: 201,
              body: await createExtensionBcard(
                deps,
                { user, extensionToken },
                // As POST /api/virtual-cards, plus the site.
                { ...createBcardInput(body), idempotencyKey: scopedKey, site: body.site },
              ),
            }),
          );
          return idempotentResponse(outcome);
        },
        {
          extension: true,
          parse: 'json',
          body: ExtensionCreateBcardBody,
          headers: IdempotencyHeader,
          response: { 201: BcardModel, ...errors(400, 401, 402, 403, 404, 409, 415, 503) },
          detail: {
            summary: 'Collect a split and issue a bcard for the checkout page the extension is on',
            description:
              'As POST /api/virtual-cards (same body, errors and Idempotency-Key), plus site: the bcard is locked to ' +
              "the site's registrable domain, and only this token can read its card details.",
          },
        },
      )
      .get(
        '/api/extension/bcards/progress',
        ({ user, query, set }) => {
          set.headers['cache-control'] = 'no-store';
          return collectionProgress(deps, user.id, query.key);
        },
        {
          extension: true,
          query: t.Object({ key: t.String({ maxLength: 255, error: 'key must be the Idempotency-Key sent with the request.' }) }),
          response: { 200: CollectionProgressModel, ...errors(400, 401, 403) },
          detail: {
            summary: 'How far a POST /api/extension/bcards has got, by its Idempotency-Key',
            description: 'As GET /api/virtual-cards/collection-progress.',
          },
        },
      )
      .get(
        '/api/extension/bcards/:id/checkout-details',
        ({ user, extensionToken, params, request, set }) => {
          set.headers['cache-control'] = 'no-store';
          return revealExtensionBcard(deps, { user, extensionToken }, params.id, meta(request));
        },
        {
          extension: true,
          params: t.Object({ id: t.String({ maxLength: 64 }) }),
          response: { 200: ExtensionCheckoutDetailsModel, ...errors(401, 403, 404, 409) },
          detail: {
            summary: "The full number, expiry, CVV and name of a bcard this token made, to fill in (each reveal is recorded)",
            description: 'A bcard made in the dashboard or by another connected browser is "not found".',
          },
        },
      )
  );
}
