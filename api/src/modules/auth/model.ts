import { t } from 'elysia';
import { lineText, nameText } from '../../lib/text';

/*
 * `.invalid` (RFC 2606) can never receive mail, and bpay's own system accounts live there (the demo merchant), so no
 * one can register or move to such an address.
 */
const email = t.String({
  format: 'email',
  maxLength: 254,
  pattern: '^(?!.*\\.[iI][nN][vV][aA][lL][iI][dD]$)',
  error: 'email must be a valid email address.',
});

/** en or ar: the language bpay writes to the user in (mail, notices, server-made text). */
const language = t.Union([t.Literal('en'), t.Literal('ar')], {
  error: 'language must be one of: en, ar.',
  description:
    'The language bpay writes to you in: mail, notices and the texts bpay makes (descriptions, reasons). At sign-up, the ' +
    'one you sign up in (default en).',
});

export const AddressModel = t.Object(
  {
    line1: t.Union([t.String({ maxLength: 200 }), t.Null()]),
    city: t.Union([t.String({ maxLength: 100 }), t.Null()]),
    state: t.Union([t.String({ minLength: 2, maxLength: 2 }), t.Null()]),
    postal_code: t.Union([t.String({ maxLength: 20 }), t.Null()]),
    country: t.String({ minLength: 2, maxLength: 2, default: 'US' }),
  },
  { additionalProperties: false },
);

export const UserModel = t.Object(
  {
    id: t.String({ examples: ['usr_3f2a9c1d0b7e6f5a4c3b2a19'] }),
    email: t.String(),
    firstName: t.Union([t.String(), t.Null()]),
    lastName: t.Union([t.String(), t.Null()]),
    phoneNumber: t.Union([t.String(), t.Null()]),
    profileImageUrl: t.Union([t.String(), t.Null()]),
    country: t.Union([t.String(), t.Null()]),
    address: AddressModel,
    role: t.Union([t.Literal('user'), t.Literal('merchant'), t.Literal('admin')]),
    isKycVerified: t.Boolean(),
    twoFactorEnabled: t.Boolean(),
    loginNotifications: t.Boolean(),
    language: t.Union([t.Literal('en'), t.Literal('ar')]),
    createdAt: t.String({ format: 'date-time' }),
  },
  { $id: '#/components/schemas/User' },
);

/**
 * The session probe's answer: who is signed in, or null. "Nobody" is an ordinary answer here, not a 401, so a
 * signed-out visit to a public page logs no failed request.
 */
export const SessionModel = t.Object({ user: t.Union([UserModel, t.Null()]) });

export const RegisterBody = t.Object(
  {
    email,
    password: t.String({
      minLength: 6,
      maxLength: 256,
      error: 'password must be between 6 and 256 characters.',
    }),
    firstName: t.Optional(lineText('firstName', 100)),
    lastName: t.Optional(lineText('lastName', 100)),
    language: t.Optional(language),
  },
  {
    additionalProperties: false,
    examples: [{ email: 'ada@example.com', password: 'correct horse', firstName: 'Ada', lastName: 'Lovelace', language: 'en' }],
  },
);

export const LoginBody = t.Object(
  {
    email,
    password: t.String({ minLength: 1, maxLength: 256, error: 'password is required.' }),
    totpCode: t.Optional(
      t.String({ pattern: '^[0-9]{6}$', error: 'totpCode must be the 6-digit code from your authenticator app.' }),
    ),
  },
  { additionalProperties: false, examples: [{ email: 'ada@example.com', password: 'correct horse' }] },
);

export const ProfilePatchBody = t.Object(
  {
    firstName: t.Optional(lineText('firstName', 100)),
    lastName: t.Optional(lineText('lastName', 100)),
    email: t.Optional(email),
    country: t.Optional(
      t.String({ pattern: '^([A-Za-z]{2})?$', error: 'country must be a 2-letter country code.' }),
    ),
    phoneNumber: t.Optional(
      t.String({
        pattern: '^(\\+?[0-9][0-9 ().-]{5,22})?$',
        error: 'phoneNumber must be a phone number of 6 to 23 digits, spaces, dots, dashes or brackets.',
      }),
    ),
    loginNotifications: t.Optional(t.Boolean()),
    language: t.Optional(language),
    password: t.Optional(
      t.String({
        minLength: 6,
        maxLength: 256,
        error: 'password must be between 6 and 256 characters.',
        description: 'A new password (needs currentPassword). It must not be easy to guess (weak_password).',
      }),
    ),
    currentPassword: t.Optional(
      t.String({
        minLength: 1,
        maxLength: 256,
        error: 'currentPassword must be your current password.',
        description: 'Your current password: required to change email (to another address) or password; ignored otherwise.',
      }),
    ),
    address: t.Optional(
      t.Object(
        {
          line1: nameText('address.line1', 200),
          city: nameText('address.city', 100),
          state: t.Optional(
            t.String({ pattern: '^([A-Za-z]{2})?$', error: 'address.state must be a 2-letter state code.' }),
          ),
          postal_code: t.Optional(t.String({ maxLength: 20 })),
          country: t.Optional(
            t.String({ pattern: '^([A-Za-z]{2})?$', error: 'address.country must be a 2-letter country code.' }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
  },
  {
    additionalProperties: false,
    description: 'Only these fields can change. Role, plan and verification status are not writable here.',
    examples: [
      {
        phoneNumber: '+1 415 555 0100',
        address: { line1: '1 Market St', city: 'San Francisco', state: 'CA', postal_code: '94105', country: 'US' },
      },
      { firstName: 'Ada', lastName: 'Lovelace', country: 'GB' },
      { language: 'ar' },
      { email: 'ada.lovelace@example.com', currentPassword: 'correct horse' },
      { password: 'analytical engine notes', currentPassword: 'correct horse' },
    ],
  },
);

export const TotpCodeBody = t.Object(
  { code: t.String({ pattern: '^[0-9]{6}$', error: 'code must be the 6-digit code from your authenticator app.' }) },
  { additionalProperties: false, examples: [{ code: '492039' }] },
);

export const TotpDisableBody = t.Object(
  {
    code: t.String({ pattern: '^[0-9]{6}$', error: 'code must be the 6-digit code from your authenticator app.' }),
    password: t.String({ minLength: 1, maxLength: 256, error: 'password must be your current password.' }),
  },
  { additionalProperties: false, examples: [{ code: '492039', password: 'correct horse' }] },
);

export const TotpEnrolmentModel = t.Object({
  secret: t.String({ description: 'Base32 TOTP secret to enter in an authenticator app.' }),
  otpauthUrl: t.String({ description: 'otpauth:// URI, shown as a QR code.' }),
});

export const PasswordResetRequestBody = t.Object(
  { email },
  { additionalProperties: false, examples: [{ email: 'ada@example.com' }] },
);

/** The token from a reset link: 32 random bytes, base64url (43 characters). */
const resetToken = t.String({
  pattern: '^[A-Za-z0-9_-]{43}$',
  error: 'token must be the code from a password reset link (43 letters, digits, - or _).',
});

const EXAMPLE_TOKEN = 'q3V9cXJ0eTEyMzQ1Njc4OTBhYmNkZWZnaGlqa2xtbm9';

export const PasswordResetCheckBody = t.Object(
  { token: resetToken },
  { additionalProperties: false, examples: [{ token: EXAMPLE_TOKEN }] },
);

export const PasswordResetConfirmBody = t.Object(
  {
    token: resetToken,
    password: t.String({
      minLength: 6,
      maxLength: 256,
      error: 'password must be between 6 and 256 characters.',
      description: 'The new password: the registration rules apply (weak_password).',
    }),
  },
  { additionalProperties: false, examples: [{ token: EXAMPLE_TOKEN, password: 'brass lantern meadow' }] },
);

export const PasswordResetRequested = t.Object({
  success: t.Literal(true),
  message: t.String({
    examples: ['If an account uses this e-mail address, a link to reset its password is on its way. It expires in 30 minutes.'],
  }),
});

export const PasswordResetCheck = t.Object({
  email: t.String({ description: 'The account the link resets, masked (a***@example.com).' }),
  expiresAt: t.String({ format: 'date-time' }),
});

/** The token from an e-mail change link (confirmation or "this was not me"): 32 random bytes, base64url. */
const emailChangeToken = t.String({
  pattern: '^[A-Za-z0-9_-]{43}$',
  error: 'token must be the code from an e-mail change link (43 letters, digits, - or _).',
});

export const EmailChangeTokenBody = t.Object(
  { token: emailChangeToken },
  { additionalProperties: false, examples: [{ token: EXAMPLE_TOKEN }] },
);

export const PendingEmailChangeModel = t.Object({
  pending: t.Union([
    t.Object({
      email: t.String({ description: 'The new address, waiting for its confirmation link to be followed.' }),
      expiresAt: t.String({ format: 'date-time', description: 'When the link sent to it stops working.' }),
      sentAt: t.String({ format: 'date-time' }),
    }),
    t.Null(),
  ]),
});

export const EmailChangeConfirmed = t.Object({
  email: t.String({ description: 'The account\'s e-mail address now.' }),
});

export const EmailChangeReverted = t.Object({
  email: t.String({ description: 'The address put back, masked (a***@example.com). A password reset link went to it.' }),
});

/** A sign-in link's token (32 random bytes, base64url) and, when two-factor is on, the code. */
export const SignInLinkBody = t.Object(
  {
    token: t.String({
      pattern: '^[A-Za-z0-9_-]{43}$',
      error: 'token must be the code from a sign-in link (43 letters, digits, - or _).',
    }),
    totpCode: t.Optional(
      t.String({ pattern: '^[0-9]{6}$', error: 'totpCode must be the 6-digit code from your authenticator app.' }),
    ),
  },
  { additionalProperties: false, examples: [{ token: EXAMPLE_TOKEN }] },
);
