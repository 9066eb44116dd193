import { Elysia, t } from 'elysia';
import { EMAIL_KINDS } from '@bpay/db';
import type { AppDeps } from '../../deps';
import { errors, sharedModels } from '../../models';
import { listOutbox } from '../email/outbox';
import { outboxAccess } from './outbox-access';
import { ADMIN_SECURITY } from './routes';

const OutboxMessageModel = t.Object({
  id: t.String(),
  kind: t.UnionEnum(EMAIL_KINDS),
  to: t.String(),
  subject: t.String(),
  status: t.Union([t.Literal('pending'), t.Literal('sent'), t.Literal('failed')]),
  attempts: t.Integer(),
  lastError: t.Union([t.String(), t.Null()]),
  text: t.String({
    description:
      'The plain-text body. A one-time link (reset, sign-in, e-mail change) shows "[one-time token, not kept]" in ' +
      'place of its token, except to a local install\'s own browser while the message is not sent.',
  }),
  createdAt: t.String({ format: 'date-time' }),
  sentAt: t.Union([t.String({ format: 'date-time' }), t.Null()]),
  nextAttemptAt: t.Union([t.String({ format: 'date-time' }), t.Null()]),
});

export function emailOutboxRoutes(deps: AppDeps) {
  return new Elysia({ prefix: '/api/email-outbox', tags: ['E-mail'] }).use(sharedModels).get(
    '',
    async ({ request, query, set }) => {
      const access = await outboxAccess(deps, request);
      // Reset links inside: never kept by a browser or a proxy.
      set.headers['cache-control'] = 'no-store';
      return {
        access,
        smtpConfigured: deps.mail.transport !== null,
        // One-time tokens: never to an admin; only a local install's own browser (its outbox is its mailbox) gets the
        // links of messages not yet sent (email/outbox.ts).
        messages: await listOutbox(deps.db, query.limit ?? 100, access === 'local' ? { sessionSecret: deps.session.secret } : undefined),
      };
    },
    {
      query: t.Object({
        limit: t.Optional(t.Integer({ minimum: 1, maximum: 500, error: 'limit must be a whole number from 1 to 500.' })),
      }),
      response: {
        200: t.Object({
          access: t.Union([t.Literal('admin'), t.Literal('local')]),
          smtpConfigured: t.Boolean(),
          messages: t.Array(OutboxMessageModel),
        }),
        ...errors(400, 401, 403, 429),
      },
      detail: {
        summary: 'The e-mail outbox: messages bpay sent, is sending or would send',
        security: [...ADMIN_SECURITY, {}],
        description:
          'Newest first (limit, default 100). One-time links are shown without their token (bpay keeps it sealed until ' +
          'the mail is sent, then drops it), except to a local install. It answers only a signed-in admin ' +
          '(Authorization: Bearer <admin token>; a bad token is 401 invalid_admin_token) or, on a local install, a ' +
          'request from the machine itself: no BPAY_SMTP_URL, a localhost BPAY_PUBLIC_URL, BPAY_TRUST_PROXY off, a ' +
          'loopback peer address and Host, and no forwarding header. Anyone else: 403 outbox_forbidden.',
      },
    },
  );
}
