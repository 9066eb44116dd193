import { t } from 'elysia';

/* The Customer API's shapes (issue 28): Stripe's Customer object, with the fields bpay keeps. */

export const CustomerModel = t.Object(
  {
    id: t.String({ examples: ['cus_5d1f0a9e2c7b4a3f8e6d1c0b'] }),
    object: t.Literal('customer'),
    email: t.Union([t.String(), t.Null()]),
    name: t.Union([t.String(), t.Null()]),
    phone: t.Union([t.String(), t.Null()]),
    description: t.Union([t.String(), t.Null()]),
    metadata: t.Record(t.String(), t.String()),
    created: t.Integer({ description: 'Unix seconds' }),
    livemode: t.Boolean(),
  },
  { description: "A merchant's customer: contact details a payment intent can name (customer: cus_…)" },
);

export const CustomerDeleted = t.Object(
  { id: t.String(), object: t.Literal('customer'), deleted: t.Literal(true) },
  { description: 'A deleted customer: what delete answers, and what retrieve answers afterwards, as Stripe does' },
);

export const CustomerList = t.Object({
  object: t.Literal('list'),
  url: t.String(),
  has_more: t.Boolean(),
  data: t.Array(CustomerModel),
});

const text = (max: number, field: string) =>
  t.Union([t.String({ maxLength: max }), t.Null()], { error: `${field} must be a string of at most ${max} characters; null or "" removes it.` });

const fields = {
  email: t.Optional(
    t.Union([t.String({ maxLength: 512 }), t.Null()], {
      error: 'email must be an e-mail address of at most 512 characters; null or "" removes it.',
    }),
  ),
  name: t.Optional(text(256, 'name')),
  phone: t.Optional(text(20, 'phone')),
  description: t.Optional(text(1000, 'description')),
};

export const CreateCustomerBody = t.Optional(
  t.Object(
    {
      ...fields,
      metadata: t.Optional(
        t.Record(t.String(), t.String({ maxLength: 500 }), {
          error: 'metadata must be an object of string values of at most 500 characters.',
          description: 'Up to 50 keys; a key whose value is "" is not stored (as Stripe: "" means unset).',
        }),
      ),
    },
    { additionalProperties: false, examples: [{ email: 'jenny@example.com', name: 'Jenny Rosen', metadata: { crm_id: '42' } }] },
  ),
);

export const UpdateCustomerBody = t.Optional(
  t.Object(
    {
      ...fields,
      metadata: t.Optional(
        t.Union([t.Record(t.String(), t.String({ maxLength: 500 })), t.Literal(''), t.Null()], {
          error:
            'metadata must be an object of string values of at most 500 characters (a key set to "" is removed), ' +
            'or "" (or null) to remove every key.',
          description: 'Merged into the current metadata: a key set to "" is removed; metadata "" removes every key.',
        }),
      ),
    },
    { additionalProperties: false, examples: [{ phone: '+15555550123', metadata: { crm_id: '43', old: '' } }] },
  ),
);
