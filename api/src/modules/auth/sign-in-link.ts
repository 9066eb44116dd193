import { and, eq, gt, isNull } from 'drizzle-orm';
import { schema, type Db, type DbOrTx } from '@bpay/db';
import { AppError } from '../../errors';
import { addressKey } from '../../lib/address-key';
import { systemNow, type Clock } from '../../lib/clock';
import { hmacHex } from '../../lib/crypto';
import { newId, newToken } from '../../lib/ids';
import { hitThrottle, releaseThrottle, type ThrottleRule } from '../../lib/throttle';
import { unseal } from '../../lib/crypto';
import { verifyTotp } from '../../lib/totp';
import { describeDevice, mailLanguage, signInLinkEmail } from '../email/messages';
import { enqueueEmail } from '../email/outbox';
import { toPublicUser } from '../users/service';
import { countVerification, signInSucceeded } from './rate-limit';
import { commitSignIn, type AuthDeps, type SignedIn } from './service';
import type { SessionClient, SessionConfig } from './sessions';

/*
 * The sign-in link: what keeps a distributed guesser from locking the owner out (issue 27).
 *
 * Past an account's daily cap of failed sign-ins (rate-limit.ts), an address the account has not signed in from is
 * not let in by the password alone. Without a two-factor code, its attempt is still checked, and the answer is the
 * same whether the password was right or wrong (401 sign_in_link_sent: "if the password is right, a link is on its
 * way"): a guesser past the cap learns nothing, exactly as before, while a right password mails the account a
 * one-time link. The link works once, for 15 minutes, and only from the address (addressKey) that asked: a link
 * opened elsewhere is refused and stays usable where it belongs. Using it signs in as a normal sign-in does (the
 * session, the notices, the address remembered), and still needs the two-factor code when two-factor is on: the link
 * stands in for the cap's block only, never for the second factor. The database keeps only an HMAC of the token, and
 * an HMAC of the password hash it was sent for: a password changed or reset since makes the link useless.
 *
 * Limits: every such checked attempt counts, before the password check, against its address (5 an hour, all accounts
 * together; 429 sign_in_link_rate_limited): counted whatever the password, so the limit tells nothing either, and it
 * bounds the argon2 work past the cap along with the sign-in limits (each attempt also counts as a failure against
 * the address and the account-and-address pair, right password or not, until a link is used). At most 3 links an
 * hour are mailed per account: past that, a right password gets the same answer and no mail (answering otherwise
 * would tell a guesser the password was right), and the account already holds 3 links from the last hour.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
export const SIGN_IN_LINK_TTL_MS = 15 * MINUTE;
/** Checked attempts past an account's cap, from one address (all accounts together), whatever the password. */
export const SIGN_IN_LINK_PER_ADDRESS: ThrottleRule = { scope: 'sign_in_link:address', limit: 5, windowMs: HOUR };
/** Links mailed to one account. */
export const SIGN_IN_LINK_PER_ACCOUNT: ThrottleRule = { scope: 'sign_in_link:account', limit: 3, windowMs: HOUR };

export interface SignInLinkDeps extends AuthDeps {
  session: SessionConfig;
}

const tokenHashOf = (secret: string, token: string) => hmacHex(secret, `sign-in-link:${token}`);
const passwordStampOf = (secret: string, passwordHash: string) => hmacHex(secret, `sign-in-link-password:${passwordHash}`);

/** The web app's /sign-in-link page with the token (the page reads and then hides it). */
export function signInLinkUrl(publicUrl: URL, token: string): string {
  return new URL(`/sign-in-link?token=${encodeURIComponent(token)}`, publicUrl.origin).href;
}

/** The one answer past the cap without a code, right password or wrong. */
export const signInLinkSent = () => new AppError('sign_in_link_sent');

/**
 * Counts a checked attempt past an account's cap against its address, before the password is checked. Fails with:
 * sign_in_link_rate_limited (429 with Retry-After).
 */
export async function countSignInLinkRequest(db: Db, clock: Clock, address: string): Promise<void> {
  const outcome = await hitThrottle(db, clock, [{ rule: SIGN_IN_LINK_PER_ADDRESS, key: address }]);
  if (outcome.allowed) return;
  const s = outcome.retryAfterSeconds;
  const m = Math.ceil(s / 60);
  throw new AppError(
    'sign_in_link_rate_limited',
    `Too many sign-in link requests from this network. Try again in ${m} minute${m === 1 ? '' : 's'}.`,
    undefined,
    { 'retry-after': String(s) },
  );
}

/**
 * The password was right: mails a link bound to `client`'s address, unless the account's hourly allowance of links
 * is spent (then nothing is sent, and the caller answers the same). The row and its mail are one transaction.
 */
export async function sendSignInLink(
  deps: SignInLinkDeps,
  user: { id: string; email: string; firstName: string | null; language: string; passwordHash: string },
  client: SessionClient,
): Promise<void> {
  const { db, clock } = deps;
  const allowed = await hitThrottle(db, clock, [{ rule: SIGN_IN_LINK_PER_ACCOUNT, key: user.id }]);
  if (!allowed.allowed) {
    deps.log.warn('sign-in link not sent: the account had its hourly allowance', { userId: user.id });
    return;
  }
  const token = newToken();
  const now = clock.now();
  await db.transaction(async (tx) => {
    await tx.insert(schema.signInLinks).values({
      id: newId('sil'),
      userId: user.id,
      tokenHash: tokenHashOf(deps.session.secret, token),
      address: addressKey(client.ip),
      passwordStamp: passwordStampOf(deps.session.secret, user.passwordHash),
      createdAt: now,
      expiresAt: new Date(now.getTime() + SIGN_IN_LINK_TTL_MS),
    });
    await enqueueEmail(
      tx,
      now,
      signInLinkEmail({
        userId: user.id,
        to: user.email,
        firstName: user.firstName,
        lang: mailLanguage(user.language),
        link: signInLinkUrl(deps.publicUrl, token),
        expiresInMinutes: SIGN_IN_LINK_TTL_MS / MINUTE,
        device: describeDevice(client.userAgent),
        ip: client.ip,
        at: now,
      }),
      { token, sessionSecret: deps.session.secret },
    );
  });
  deps.log.info('sign-in link sent', { userId: user.id });
}

/** Links being mailed after their answer (mailSignInLinkAfterAnswer). */
const mailing = new Set<Promise<void>>();

/**
 * Mails the link once the answer has gone: answering only after its writes (two commits, each an fsync) would make a
 * right password's 401 measurably slower than a wrong one's, telling a guesser past the cap what the same answer
 * hides. A failure is logged; the owner asks again.
 */
export function mailSignInLinkAfterAnswer(deps: SignInLinkDeps, user: Parameters<typeof sendSignInLink>[1], client: SessionClient): void {
  const job: Promise<void> = new Promise<void>((resolve) => setTimeout(resolve, 0))
    .then(() => sendSignInLink(deps, user, client))
    .catch((error: unknown) => deps.log.error('sign-in link not sent', { userId: user.id, error }))
    .finally(() => mailing.delete(job));
  mailing.add(job);
}

/** Resolves once every link being mailed after its answer is written (tests read the outbox after it). */
export async function signInLinksMailed(): Promise<void> {
  while (mailing.size > 0) await Promise.all([...mailing]);
}

type LinkRow = typeof schema.signInLinks.$inferSelect;

/** The link's row, or why it cannot be used. Fails with: sign_in_link_invalid, sign_in_link_used, sign_in_link_expired. */
async function usableLink(deps: SignInLinkDeps, token: string): Promise<LinkRow> {
  const row = await deps.db.query.signInLinks.findFirst({
    where: eq(schema.signInLinks.tokenHash, tokenHashOf(deps.session.secret, token)),
  });
  if (!row) throw new AppError('sign_in_link_invalid', undefined, 'token');
  if (row.usedAt) throw new AppError('sign_in_link_used', undefined, 'token');
  if (row.expiresAt.getTime() <= deps.clock.now().getTime()) throw new AppError('sign_in_link_expired', undefined, 'token');
  return row;
}

/**
 * Signs in with a link from the address that asked for it. Checked in this order, nothing consumed by a refusal:
 * the link (sign_in_link_invalid — unknown, or the password changed since —, sign_in_link_used, sign_in_link_expired,
 * param token), the address (sign_in_link_other_network, 403), the two-factor code when on (two_factor_required,
 * invalid_two_factor_code, verification_rate_limited, as at sign-in). Then, in one transaction, the link is marked
 * used (guarded: two requests with one link cannot both sign in), the code's step consumed and the session created
 * with its notices, as a normal sign-in; the address becomes one the account signs in from.
 */
export async function signInWithLink(
  deps: SignInLinkDeps,
  input: { token: string; totpCode?: string },
  client: SessionClient,
): Promise<SignedIn> {
  const { db, clock } = deps;
  const row = await usableLink(deps, input.token);
  const address = addressKey(client.ip);
  if (row.address !== address) throw new AppError('sign_in_link_other_network');
  const user = await db.query.users.findFirst({ where: eq(schema.users.id, row.userId) });
  if (!user || passwordStampOf(deps.session.secret, user.passwordHash) !== row.passwordStamp) {
    throw new AppError('sign_in_link_invalid', undefined, 'token');
  }
  let code: { sealedSecret: string; step: number; attempt: number } | null = null;
  if (user.totpSecret) {
    if (!input.totpCode) throw new AppError('two_factor_required', undefined, 'totpCode');
    const [attempt] = await countVerification(db, clock, user.id, ['two_factor']);
    const step = verifyTotp(unseal(deps.totpKey, user.totpSecret), input.totpCode, systemNow(clock).getTime());
    if (step === null) throw new AppError('invalid_two_factor_code', undefined, 'totpCode');
    code = { sealedSecret: user.totpSecret, step, attempt: attempt! };
  }
  const claim = async (tx: DbOrTx) => {
    const now = clock.now();
    const t = schema.signInLinks;
    const used = await tx
      .update(t)
      .set({ usedAt: now })
      .where(and(eq(t.id, row.id), isNull(t.usedAt), gt(t.expiresAt, now)))
      .returning({ id: t.id });
    return used.length === 1;
  };
  const session = await commitSignIn(deps, user, code, client, claim);
  // Another request used the link (or it expired) meanwhile: say which, as a fresh look sees it.
  if (session === 'claim_lost') {
    await usableLink(deps, input.token);
    throw new AppError('sign_in_link_used', undefined, 'token');
  }
  if (session === 'password_changed') throw new AppError('sign_in_link_invalid', undefined, 'token');
  if (session === 'code_used') throw new AppError('invalid_two_factor_code', undefined, 'totpCode');
  if (code) await releaseThrottle(db, [code.attempt]);
  await signInSucceeded(db, clock, { account: user.emailNormalized, address }, user.id, { ids: [], cappedFor: null });
  deps.log.info('signed in with a sign-in link', { userId: user.id });
  return { user: toPublicUser(user), session };
}
