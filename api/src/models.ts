import { t } from 'elysia';

/** The one error shape every failure uses. */
export const ErrorResponse = t.Object(
  {
    error: t.Object({
      type: t.UnionEnum([
          'invalid_request_error',
          'authentication_error',
          'permission_error',
          'rate_limit_error',
          'idempotency_error',
          'card_error',
          'api_error',
        ] as const),
      code: t.String({ examples: ['validation_error'] }),
      message: t.String(),
      param: t.Optional(t.String()),
      request_id: t.Optional(t.String()),
    }),
  },
  { $id: '#/components/schemas/Error', description: 'Every failure is answered in this shape.' },
);

/** Standard error responses, merged into a route's `response` map. */
export const errors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [s, ErrorResponse])) as Record<number, typeof ErrorResponse>;
