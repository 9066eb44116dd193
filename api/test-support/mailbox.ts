/*
 * An outbox row read as its recipient will read it: the stored bodies hold a placeholder where a one-time link's token
 * goes (api/src/modules/email/outbox.ts), and the mail worker puts the sealed token back only into the message it
 * sends. Tests that take a link "from the inbox" without running the worker read it through this.
 */
import { openSealedToken, withToken } from '../src/modules/email/outbox';
import type { TestContext } from './app';

export function mailedText(ctx: Pick<TestContext, 'deps'>, row: { textBody: string; sealedToken: string | null }): string {
  if (row.sealedToken === null) return row.textBody;
  return withToken({ text: row.textBody, html: null }, openSealedToken(ctx.deps.session.secret, row.sealedToken)).text;
}
