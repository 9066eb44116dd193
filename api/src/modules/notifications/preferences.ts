import { eq } from 'drizzle-orm';
import { NOTICE_KINDS, schema, type Db, type DbOrTx, type NoticeKind } from '@bpay/db';
import { AppError, invalid } from '../../errors';
import { shownText } from '../../lib/text';
import { hasOwnMail, isLockedKind, isSecurityKind } from './kinds';

/*
 * Which notices reach the user by mail (Settings → Notifications). Every notice is shown in the dashboard; mail:
 *   - security kinds always (a change the user did not make must reach them), except sign_in, which follows the
 *     Login Notifications switch of Settings → Security as it did before notices existed;
 *   - plan charges and failed renewals always (billing's receipt and plan notices are those mails);
 *   - money and identity kinds on by default, each one the user's choice.
 * users.notice_email_prefs keeps only the kinds where the user differs from these defaults.
 */

/** How the settings screen groups the kinds (one switch per group). */
export const NOTICE_GROUPS = {
  bcards: ['bcard_issued', 'bcard_spent', 'bcard_declined', 'bcard_expired', 'bcard_canceled'],
  refunds: ['merchant_refund', 'dispute_opened', 'dispute_won', 'dispute_lost', 'refund_failed', 'payable_settled'],
  bank: ['bank_debit_settled', 'bank_debit_returned', 'receivable_repaid', 'receivable_waived'],
  plans: ['plan_charged', 'plan_renewal_failed', 'plan_refunded'],
  identity: ['kyc_approved', 'kyc_failed'],
  security: ['sign_in', 'password_changed', 'password_reset', 'two_factor_enabled', 'two_factor_disabled', 'email_changed'],
} as const satisfies Record<string, readonly NoticeKind[]>;
export type NoticeGroup = keyof typeof NOTICE_GROUPS;
export const NOTICE_GROUP_NAMES = ['bcards', 'refunds', 'bank', 'plans', 'identity', 'security'] as const satisfies readonly NoticeGroup[];

export const groupOf = (kind: NoticeKind): NoticeGroup =>
  NOTICE_GROUP_NAMES.find((g) => (NOTICE_GROUPS[g] as readonly NoticeKind[]).includes(kind))!;

/** Mail for a kind the user has not chosen about: every kind on (no kind is marketing). */
const DEFAULT_MAIL = true;

/**
 * Whether notify() itself mails a notice of `kind`: what the user wants, except the kinds whose module writes their
 * own mail (kinds.ts OWN_MAIL_KINDS), which would otherwise arrive twice.
 */
export function notifyMails(kind: NoticeKind, prefs: Record<string, boolean> | null | undefined, loginNotifications: boolean): boolean {
  return !hasOwnMail(kind) && wantsMail(kind, prefs, loginNotifications);
}

/** Whether a mail tells the user of a `kind` event (by notify or by its own module), with these choices. */
export function wantsMail(kind: NoticeKind, prefs: Record<string, boolean> | null | undefined, loginNotifications: boolean): boolean {
  if (kind === 'sign_in') return loginNotifications;
  if (isLockedKind(kind)) return true;
  const chosen = prefs?.[kind];
  return typeof chosen === 'boolean' ? chosen : DEFAULT_MAIL;
}

export interface NoticePreference {
  kind: NoticeKind;
  group: NoticeGroup;
  /** Whether this kind is mailed now. */
  email: boolean;
  /** Security kinds and plan receipts: mailed whatever is chosen here (sign_in: as Login Notifications says). */
  locked: boolean;
}

function preferencesOf(prefs: Record<string, boolean>, loginNotifications: boolean): NoticePreference[] {
  return NOTICE_KINDS.map((kind) => ({
    kind,
    group: groupOf(kind),
    email: wantsMail(kind, prefs, loginNotifications),
    locked: isLockedKind(kind),
  }));
}

async function userPrefs(db: DbOrTx, userId: string) {
  const [row] = await db
    .select({ prefs: schema.users.noticeEmailPrefs, loginNotifications: schema.users.loginNotifications })
    .from(schema.users)
    .where(eq(schema.users.id, userId))
    .limit(1);
  if (!row) throw new AppError('unauthenticated');
  return row;
}

export async function getNoticePreferences(db: Db, userId: string): Promise<NoticePreference[]> {
  const row = await userPrefs(db, userId);
  return preferencesOf(row.prefs ?? {}, row.loginNotifications);
}

/**
 * Sets mail on or off for some kinds (`{ bcard_spent: false, ... }`); kinds left out keep their setting. Nothing is
 * stored unless every entry is valid.
 * Fails with: validation_error (param email.<kind>) for a kind that does not exist, or a security kind turned off.
 */
export async function updateNoticePreferences(
  db: Db,
  userId: string,
  changes: Record<string, boolean>,
  at: Date,
): Promise<NoticePreference[]> {
  for (const [kind, on] of Object.entries(changes)) {
    if (!(NOTICE_KINDS as readonly string[]).includes(kind)) {
      throw invalid(`email.${shownText(kind)}`, `Unknown notice kind '${shownText(kind)}'. Kinds: ${NOTICE_KINDS.join(', ')}.`);
    }
    if (typeof on !== 'boolean') throw invalid(`email.${kind}`, `email.${kind} must be true or false.`);
    if (isLockedKind(kind as NoticeKind) && !on) {
      throw invalid(
        `email.${kind}`,
        kind === 'sign_in'
          ? 'Sign-in notices by e-mail follow Login Notifications in Settings → Security: turn that off instead.'
          : isSecurityKind(kind as NoticeKind)
            ? `Security notices (${kind}) are always sent by e-mail and cannot be turned off.`
            : `Plan receipts and plan notices (${kind}) are always sent by e-mail and cannot be turned off.`,
      );
    }
  }
  // Read and written in one write transaction: two changes at once both land.
  return db.transaction(async (tx) => {
    const row = await userPrefs(tx, userId);
    const next: Record<string, boolean> = { ...(row.prefs ?? {}) };
    for (const [kind, on] of Object.entries(changes)) {
      if (isLockedKind(kind as NoticeKind)) continue;
      // Only differences from the defaults are kept.
      if (on === DEFAULT_MAIL) delete next[kind];
      else next[kind] = on;
    }
    await tx.update(schema.users).set({ noticeEmailPrefs: next, updatedAt: at }).where(eq(schema.users.id, userId));
    return preferencesOf(next, row.loginNotifications);
  });
}
