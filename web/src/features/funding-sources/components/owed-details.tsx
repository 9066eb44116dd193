import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Button } from '../../../components/ui/button';
import { useLanguage } from '../../../i18n';
import { parseCents } from '../../../lib/money';
import '../owed-texts';
import { receivablesQuery, type Receivables } from '../owed-api';
import { RepayDialog } from './repay-dialog';

const dateFormats = {
  en: new Intl.DateTimeFormat('en-US', { dateStyle: 'medium' }),
  ar: new Intl.DateTimeFormat('ar-u-nu-latn', { day: 'numeric', month: 'long', year: 'numeric' }),
};
/** A date in the reader's language, with Latin digits to match the amounts beside it. */
const formatDate = (iso: string, lang: 'en' | 'ar') => dateFormats[lang].format(new Date(iso));

type Source = Receivables['returnedDebits'][number]['bankAccount'];
/** A name a person typed, or a card's ending, kept in one piece of its own direction inside a sentence (FSI…PDI). */
const iso = (s: string) => `\u2068${s}\u2069`;
const sourceName = (s: Source) => (s ? iso(`${s.name} (•••• ${s.last4})`) : '');

/**
 * Under the "You owe" banner: the figures, why (each returned debit after use and each dispute, with its date, bcard
 * and card or account), the repayments and waivers so far, and Repay. Loaded only when something is owed.
 */
export function OwedDetails() {
  const { t, lang } = useLanguage();
  const owed = useQuery(receivablesQuery(lang));
  const [repaying, setRepaying] = useState(false);
  if (owed.isPending) return <p>{t('receivables.loading')}</p>;
  if (!owed.data) return <p>{t('receivables.loadFailed')}</p>;
  const r = owed.data;
  const canRepay = (parseCents(r.repayable) ?? 0) > 0;
  const history = [
    ...r.repayments.map((p) => ({
      id: p.id,
      at: p.createdAt,
      text: `${t('receivables.repayment', { date: formatDate(p.createdAt, lang), amount: p.amount, card: sourceName(p.fundingSource) })} · ${t(`receivables.repaymentStatus.${p.status}`)}${p.status === 'failed' && p.failureMessage ? `: ${p.failureMessage}` : ''}`,
    })),
    ...r.waivers.map((w) => ({ id: w.id, at: w.createdAt, text: t('receivables.waiver', { date: formatDate(w.createdAt, lang), amount: w.amount, reason: iso(w.reason) }) })),
  ].sort((a, b) => b.at.localeCompare(a.at));
  return (
    <div className="space-y-3" data-testid="owed-details">
      <p className="break-words" data-testid="owed-figures">
        {t('receivables.figures', { owed: r.owed, underDispute: r.underDispute, repayable: r.repayable })}
      </p>
      <div>
        <p className="font-medium">{t('receivables.why')}</p>
        <ul className="list-disc space-y-1 ps-5" data-testid="owed-items">
          {r.returnedDebits.map((d) => (
            <li key={d.id} data-testid="owed-returned-debit">
              {t('receivables.returned', {
                amount: d.amount,
                date: formatDate(d.returnedAt, lang),
                bcard: iso(d.bcard.name),
                account: sourceName(d.bankAccount),
                reason: iso(d.reason),
              })}
            </li>
          ))}
          {r.disputes.map((d) => (
            <li key={d.id} data-testid={`owed-dispute-${d.status}`}>
              {t(d.status === 'open' ? 'receivables.disputeOpen' : 'receivables.disputeLost', {
                amount: d.amount,
                date: formatDate(d.status === 'open' ? d.openedAt : (d.closedAt ?? d.openedAt), lang),
                card: sourceName(d.card),
                bcard: iso(d.bcard.name),
              })}
            </li>
          ))}
        </ul>
      </div>
      {history.length > 0 && (
        <div>
          <p className="font-medium">{t('receivables.history')}</p>
          <ul className="list-disc space-y-1 ps-5" data-testid="owed-history">
            {history.map((h) => (
              <li key={h.id}>{h.text}</li>
            ))}
          </ul>
        </div>
      )}
      {canRepay ? (
        <Button onClick={() => setRepaying(true)} data-testid="repay-button">
          {t('receivables.repay')}
        </Button>
      ) : (
        <p>{t('receivables.nothingRepayable')}</p>
      )}
      {repaying && <RepayDialog receivables={r} onClose={() => setRepaying(false)} />}
    </div>
  );
}

/**
 * What bpay owes the consumer (issue 26, payable:<user>), the other way round from the banner above: each refund the
 * card processor failed (card, amount, date, why), other money due back after a debt was settled, and what bpay has
 * paid of it another way. Loaded only when bpay owes something (the bank standing's owedToYou).
 */
export function OwedToYou() {
  const { t, lang } = useLanguage();
  const q = useQuery(receivablesQuery(lang));
  const r = q.data;
  if (!r || (parseCents(r.owedToYou) ?? 0) <= 0) return null;
  const other = parseCents(r.otherCredits) ?? 0;
  const paid = parseCents(r.paidToYou) ?? 0;
  return (
    <div className="flex items-start gap-3 rounded-xl border border-sky-200 bg-sky-50 p-4 text-sm text-sky-900" role="status" data-testid="owed-to-you">
      <div className="min-w-0 space-y-1 break-words">
        <p className="font-semibold" data-testid="owed-to-you-amount">
          {t('receivables.owedToYou.title', { amount: r.owedToYou })}
        </p>
        <p>{t('receivables.owedToYou.body')}</p>
        <ul className="list-disc space-y-1 ps-5">
          {r.failedRefunds.map((f) => (
            <li key={f.id} data-testid="owed-to-you-failed-refund">
              {t('receivables.owedToYou.failedRefund', { amount: f.amount, date: formatDate(f.failedAt, lang), card: sourceName(f.card), reason: iso(f.reason) })}
            </li>
          ))}
          {other > 0 && <li>{t('receivables.owedToYou.other', { amount: r.otherCredits })}</li>}
          {paid > 0 && <li>{t('receivables.owedToYou.paid', { amount: r.paidToYou })}</li>}
        </ul>
      </div>
    </div>
  );
}
