/*
 * The sentences the error panel, the checkout's notice and the page's live region share, built from the flow's state.
 * Pure (the translate function and the money format are given), so what a screen reader hears is tested.
 */
import { defineMessages, type Translate } from '../../i18n';
import * as paymentDemo from '../../i18n/messages/payment-demo';
import { progressOf, type Failure, type FlowState, type Notice } from './flow';

// The texts this module names travel with it (registered again by the payment-demo area; registering is idempotent).
defineMessages(paymentDemo);

export interface Formatters {
  t: Translate;
  /** An amount as shown in running text ("$154.35", isolated left-to-right in Arabic). */
  money(cents: number): string;
  /** Keeps "Chase (•••• 4242)" in one left-to-right piece in Arabic. */
  iso(text: string): string;
}

export function failureTitle(failure: Failure, { t }: Formatters): string {
  return failure.kind === 'unconfirmed' ? t('paymentDemo.error.unconfirmedTitle') : t('paymentDemo.error.title');
}

export function failureMessage(failure: Failure, { t, money, iso }: Formatters): string {
  switch (failure.kind) {
    case 'simulated':
      return t('paymentDemo.error.simulated', { source: iso(`${failure.sourceName} (•••• ${failure.last4})`) });
    case 'insufficient':
      return failure.totalRequiredCents !== null && failure.totalAvailableCents !== null
        ? t('paymentDemo.toast.insufficientBody', { need: money(failure.totalRequiredCents), have: money(failure.totalAvailableCents) })
        : failure.message;
    case 'unconfirmed':
      return t('paymentDemo.error.unconfirmed');
    default:
      return failure.message;
  }
}

export function noticeText(notice: Notice, { t, money }: Formatters): string {
  if (notice.kind === 'unconfirmed') return t('paymentDemo.notice.unconfirmed');
  return t(notice.refunded ? 'paymentDemo.notice.canceled' : 'paymentDemo.notice.canceledPending', { amount: money(notice.refundedCents) });
}

/** What the split step is waiting for or missing (its own sources), if anything. */
export type SplitSourcesState = 'loading' | 'failed' | 'none' | 'ready';

/**
 * The text of the page's one polite live region: what changed within the current step (moving to a step moves the
 * focus to its heading, which says that). Empty when there is nothing to announce.
 */
export function liveText(
  input: { state: FlowState; sources: SplitSourcesState; purchasing: boolean; canceling: boolean },
  f: Formatters,
): string {
  const { state } = input;
  const { t, money } = f;
  switch (state.step) {
    case 'checkout':
      return state.notice ? noticeText(state.notice, f) : '';
    case 'split':
      if (input.sources === 'loading') return t('paymentDemo.split.loading');
      if (input.sources === 'failed') return t('paymentDemo.split.loadFailed');
      if (input.sources === 'none') return t('paymentDemo.split.noSources');
      return '';
    case 'bcard': {
      const g = state.generation;
      if (!g) return '';
      if (g.failure) {
        const head = `${failureTitle(g.failure, f)}. ${failureMessage(g.failure, f)}`;
        return g.retryAvailable ? `${head} ${t('paymentDemo.live.retryAvailable')}` : head;
      }
      if (g.resend) return t('paymentDemo.live.resending', { n: g.resend.attempt, total: g.resend.of });
      const p = progressOf(g);
      return t('paymentDemo.live.progress', {
        done: p.stepsDone,
        total: p.stepsTotal,
        collected: money(p.collectedCents),
        remaining: money(p.remainingCents),
      });
    }
    case 'merchant':
      if (input.canceling) return t('paymentDemo.live.canceling');
      if (input.purchasing) return t('paymentDemo.merchant.processing');
      return '';
    case 'complete':
      return '';
  }
}
