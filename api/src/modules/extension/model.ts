import { t } from 'elysia';
import { nameText } from '../../lib/text';
import { CreateBcardBody } from '../bcards/model';

export const CreatePairingBody = t.Object(
  {
    label: nameText('label', 80, { description: 'What Settings → Connected browsers calls this browser.', examples: ['Chrome on Linux'] }),
  },
  { additionalProperties: false, examples: [{ label: 'Chrome on Linux' }] },
);

export const PairingModel = t.Object({
  code: t.String({ description: 'One-time pairing code for the extension (43 base64url characters).' }),
  expiresAt: t.String({ format: 'date-time', description: 'Two minutes after it was made.' }),
});

export const ExchangePairingBody = t.Object(
  { code: t.String({ minLength: 1, maxLength: 200, error: 'code must be the pairing code the bpay page handed over.' }) },
  { additionalProperties: false, examples: [{ code: 'q4uR0m8x2Jb7lF1tW9cN6hA3sY5vE0kZpD8gT2iU7oM' }] },
);

export const IssuedTokenModel = t.Object({
  token: t.String({ description: 'bpx_ followed by 43 base64url characters. Shown only here: keep it.' }),
  id: t.String(),
  label: t.String(),
  expiresAt: t.String({ format: 'date-time' }),
});

export const ExtensionTokenModel = t.Object({
  id: t.String(),
  label: t.String(),
  createdAt: t.String({ format: 'date-time' }),
  expiresAt: t.String({ format: 'date-time' }),
  lastUsedAt: t.Union([t.String({ format: 'date-time' }), t.Null()], { description: 'To the minute; null until first used.' }),
});

export const RevokedTokenModel = t.Object({ id: t.String(), revoked: t.Literal(true) });

export const ExtensionMeModel = t.Object({
  tokenId: t.String(),
  label: t.String(),
  expiresAt: t.String({ format: 'date-time' }),
  user: t.Object({ email: t.String(), name: t.String() }),
  feePercentage: t.Number({ description: "The account's plan fee, a percentage added to a bcard's amount (2.9 = 2.9 %): what the popup's fixed split must add up to." }),
});

/** POST /api/virtual-cards's body, plus the page the checkout was found on. */
export const ExtensionCreateBcardBody = t.Object(
  {
    ...CreateBcardBody.properties,
    site: t.String({
      minLength: 1,
      maxLength: 2048,
      description: "The checkout page's URL: the bcard is locked to its registrable domain (example.co.uk).",
      error: "site must be the checkout page's address (at most 2048 characters).",
    }),
  },
  {
    additionalProperties: false,
    examples: [
      {
        name: 'Shop checkout',
        balance: '42.50',
        fundingSources: [
          { fundingSourceId: 'fs_3b8c1d2e4f5a6b7c8d9e0f1a', percentage: 60 },
          { fundingSourceId: 'fs_9e8d7c6b5a4f3e2d1c0b9a8f', percentage: 40 },
        ],
        site: 'https://www.shop.example.co.uk/checkout',
      },
    ],
    description: `${CreateBcardBody.description ?? ''} site is the page the checkout is on.`,
  },
);

export const ExtensionCheckoutDetailsModel = t.Object({
  cardNumber: t.String(),
  expiryMonth: t.Integer(),
  expiryYear: t.Integer(),
  cvv: t.String(),
  cardholderName: t.String(),
});
