import { Elysia, t } from 'elysia';
import type { AppDeps } from '../../deps';
import { errors, sharedModels } from '../../models';

/** Public contact details from configuration (BPAY_INVESTOR_EMAIL, BPAY_INVESTOR_PHONE). */
export function siteRoutes(deps: AppDeps) {
  const contact = { investorEmail: deps.site.investorEmail, investorPhone: deps.site.investorPhone };
  return new Elysia({ prefix: '/api/site', tags: ['Site'] }).use(sharedModels).get(
    '/contact',
    ({ set }) => {
      set.headers['cache-control'] = 'public, max-age=300';
      return contact;
    },
    {
      response: {
        200: t.Object({ investorEmail: t.String({ format: 'email' }), investorPhone: t.String() }),
        ...errors(500),
      },
      detail: {
        summary: "The investor pages' contact e-mail and phone (public)",
        description:
          'The contact e-mail and phone number the investor pages show, as the operator configured them. Public: ' +
          'no credentials; read only.',
        security: [],
      },
    },
  );
}
