import { AlertTriangle, ArrowLeft, FlaskConical, Loader2, Lock, ShoppingBag } from 'lucide-react';
import type { ReactNode } from 'react';
import { Badge } from '../../../components/ui/badge';
import { Button } from '../../../components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../../../components/ui/card';
import { Input } from '../../../components/ui/input';
import { Label } from '../../../components/ui/label';
import { useLanguage } from '../../../i18n';
import { formatExpiry, groupCardNumber, isolateFor } from '../../../lib/card-display';
import { formatCents } from '../../../lib/money';
import type { CardDetails, RunKind } from '../flow';

/** Long merchant names ("Supercalifragilistic…-Store", fifty Arabic letters) wrap anywhere instead of widening the page. */
const WRAP = '[overflow-wrap:anywhere]';

function Fact({ label, children, testId }: { label: string; children: ReactNode; testId?: string }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs uppercase tracking-wide text-slate-400">{label}</dt>
      <dd className="break-all font-mono text-sm text-white">
        <span dir="ltr" data-testid={testId}>
          {children}
        </span>
      </dd>
    </div>
  );
}

/**
 * A filled, read-only field of the merchant's form. The values are a card's number and CVV: no autofill, no
 * autocorrect, no spell check, so the browser neither offers to keep them nor sends them to a spelling service.
 */
function ReadOnlyField({ id, label, value, testId, text }: { id: string; label: string; value: string; testId: string; text?: boolean }) {
  return (
    <div className="min-w-0 space-y-1.5">
      <Label htmlFor={id}>{label}</Label>
      <Input
        id={id}
        value={value}
        readOnly
        aria-readonly
        autoComplete="off"
        autoCorrect="off"
        autoCapitalize="off"
        spellCheck={false}
        dir={text ? undefined : 'ltr'}
        className={text ? 'bg-slate-50' : 'bg-slate-50 font-mono'}
        data-testid={testId}
      />
    </div>
  );
}

/**
 * Merchant (spec §2): the generated card (id, number, expiry, CVV, balance, merchant, status) and the merchant's
 * checkout form filled with it, read-only, with 'Complete Purchase'. The fallback card says it is not real; a real
 * bcard whose details could not be read is shown masked, as the real card it is. A way back to the checkout: for a
 * real bcard it cancels it first, so its money goes back at once.
 */
export function MerchantStep({
  card,
  kind,
  merchant,
  amountCents,
  totalCents,
  purchasing,
  canceling,
  onComplete,
  onBack,
}: {
  card: CardDetails;
  kind: RunKind;
  merchant: string;
  amountCents: number;
  /** What the bcard collected (amount and fee): what canceling gives back. */
  totalCents: number;
  purchasing: boolean;
  canceling: boolean;
  onComplete(): void;
  onBack(): void;
}) {
  const { t, dir } = useLanguage();
  const iso = isolateFor(dir);
  const masked = card.display === 'masked';
  const number = masked ? card.number : groupCardNumber(card.number);
  const expiry = formatExpiry(card.expiryMonth, card.expiryYear);
  const cvv = card.cvv ?? '•••';
  const cardholder = card.cardholderName ?? t('paymentDemo.merchant.cardholderDemo');
  const status = card.status === 'active' ? t('paymentDemo.merchant.status.active') : card.status;
  const cancelsBcard = kind === 'real' && card.bcardId !== null;
  const busy = purchasing || canceling;

  return (
    <div className="grid gap-6 lg:grid-cols-2">
      <Card data-testid="pd-card" data-demo-card={card.display === 'demo' ? 'true' : 'false'} data-display={card.display} className="min-w-0">
        <CardHeader>
          <div className="flex flex-wrap items-center justify-between gap-2">
            <CardTitle level={2} tabIndex={-1} data-step-heading data-testid="pd-step-heading" className="outline-none">
              {t('paymentDemo.merchant.cardTitle')}
            </CardTitle>
            {card.display === 'demo' ? (
              <Badge tone="yellow" data-testid="pd-demo-card-badge">
                <FlaskConical className="me-1 h-3.5 w-3.5" aria-hidden />
                {t('paymentDemo.merchant.demoCard')}
              </Badge>
            ) : (
              <Badge tone="green">{t('paymentDemo.merchant.realCard')}</Badge>
            )}
          </div>
        </CardHeader>
        <CardContent className="space-y-4">
          {card.unconfirmed && (
            <p className="flex items-start gap-2 rounded-lg border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900" data-testid="pd-unconfirmed">
              <AlertTriangle className="mt-0.5 h-4 w-4 shrink-0" aria-hidden />
              <span className="min-w-0">{t('paymentDemo.merchant.unconfirmed')}</span>
            </p>
          )}
          {masked && (
            <p className="flex items-start gap-2 rounded-lg border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900" data-testid="pd-details-missing">
              <AlertTriangle className="mt-0.5 h-4 w-4 shrink-0" aria-hidden />
              <span className="min-w-0">{t('paymentDemo.merchant.detailsMissing')}</span>
            </p>
          )}
          <div className="space-y-4 rounded-xl bg-linear-to-br from-slate-800 to-slate-950 p-5 text-white shadow-inner">
            <p className="break-all font-mono text-lg tracking-widest sm:text-xl">
              <span dir="ltr" data-testid="pd-card-number">
                {number}
              </span>
            </p>
            <dl className="grid grid-cols-2 gap-3 sm:grid-cols-3">
              <Fact label={t('paymentDemo.merchant.expiry')} testId="pd-card-expiry">
                {expiry}
              </Fact>
              <Fact label={t('paymentDemo.merchant.cvv')} testId="pd-card-cvv">
                {cvv}
              </Fact>
              <Fact label={t('paymentDemo.merchant.balance')} testId="pd-card-balance">
                {formatCents(card.balanceCents)}
              </Fact>
            </dl>
          </div>
          <dl className="grid grid-cols-1 gap-2 text-sm sm:grid-cols-2">
            <div className="min-w-0">
              <dt className="text-slate-500">{t('paymentDemo.merchant.id')}</dt>
              <dd className="break-all text-slate-900" data-testid="pd-card-id">
                {card.bcardId ? (
                  <span className="font-mono" dir="ltr">
                    {card.bcardId}
                  </span>
                ) : (
                  t('paymentDemo.merchant.noId')
                )}
              </dd>
            </div>
            <div className="min-w-0">
              <dt className="text-slate-500">{t('paymentDemo.merchant.merchant')}</dt>
              <dd className={`${WRAP} text-slate-900`}>{merchant}</dd>
            </div>
            <div className="min-w-0">
              <dt className="text-slate-500">{t('paymentDemo.merchant.status')}</dt>
              <dd className="text-slate-900" data-testid="pd-card-status">
                {status}
              </dd>
            </div>
          </dl>
        </CardContent>
      </Card>

      <Card data-testid="pd-merchant-form" className="min-w-0">
        <CardHeader>
          <CardTitle className="flex min-w-0 items-center gap-2">
            <ShoppingBag className="h-5 w-5 shrink-0 text-brand-600" aria-hidden />
            <span className={`min-w-0 ${WRAP}`}>{t('paymentDemo.merchant.formTitle', { merchant })}</span>
          </CardTitle>
          <CardDescription>{t('paymentDemo.merchant.formDescription')}</CardDescription>
        </CardHeader>
        <CardContent className="space-y-4">
          <form
            className="space-y-4"
            onSubmit={(e) => {
              e.preventDefault();
              onComplete();
            }}
          >
            <ReadOnlyField id="pd-form-name" label={t('paymentDemo.merchant.cardholder')} value={cardholder} testId="pd-form-name" text />
            <ReadOnlyField id="pd-form-number" label={t('paymentDemo.merchant.number')} value={number} testId="pd-form-number" />
            <div className="grid grid-cols-2 gap-3">
              <ReadOnlyField id="pd-form-expiry" label={t('paymentDemo.merchant.expiry')} value={expiry} testId="pd-form-expiry" />
              <ReadOnlyField id="pd-form-cvv" label={t('paymentDemo.merchant.cvv')} value={cvv} testId="pd-form-cvv" />
            </div>
            <div className="flex items-center justify-between gap-3 border-t border-slate-200 pt-3 text-sm font-semibold">
              <span>{t('paymentDemo.merchant.total')}</span>
              <span className="tabular-nums" dir="ltr" data-testid="pd-form-total">
                {formatCents(amountCents)}
              </span>
            </div>
            <p className={`${WRAP} ${kind === 'simulated' ? 'text-sm text-amber-800' : 'text-sm text-slate-600'}`} data-testid="pd-merchant-note">
              {kind === 'simulated' ? t('paymentDemo.merchant.simulatedNote') : t('paymentDemo.merchant.realNote', { merchant })}
            </p>
            <Button type="submit" size="lg" className="w-full" disabled={busy} data-testid="pd-complete">
              {purchasing ? <Loader2 className="h-4 w-4 animate-spin" aria-hidden /> : <Lock className="h-4 w-4" aria-hidden />}
              {purchasing ? t('paymentDemo.merchant.processing') : t('paymentDemo.merchant.complete')}
            </Button>
          </form>
          <div className="space-y-1.5 border-t border-slate-200 pt-4">
            <Button variant="outline" className="w-full" disabled={busy} onClick={onBack} data-testid="pd-merchant-back">
              {canceling ? <Loader2 className="h-4 w-4 animate-spin" aria-hidden /> : <ArrowLeft className="h-4 w-4 rtl:-scale-x-100" aria-hidden />}
              {canceling
                ? t('paymentDemo.merchant.canceling')
                : cancelsBcard
                  ? t('paymentDemo.merchant.cancelBcard')
                  : t('paymentDemo.merchant.back')}
            </Button>
            {cancelsBcard && (
              <p className="text-xs text-slate-500" data-testid="pd-cancel-hint">
                {t('paymentDemo.merchant.cancelHint', { amount: iso(formatCents(totalCents)) })}
              </p>
            )}
          </div>
        </CardContent>
      </Card>
    </div>
  );
}
