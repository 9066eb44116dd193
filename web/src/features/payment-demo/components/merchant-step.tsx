import { FlaskConical, Loader2, Lock, ShoppingBag } from 'lucide-react';
import type { ReactNode } from 'react';
import { Badge } from '../../../components/ui/badge';
import { Button } from '../../../components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../../../components/ui/card';
import { Input } from '../../../components/ui/input';
import { Label } from '../../../components/ui/label';
import { useLanguage } from '../../../i18n';
import { formatCents } from '../../../lib/money';
import { groupCardNumber } from '../../bcards/bcard-display';
import { formatExpiry, type CardDetails, type RunKind } from '../flow';

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

function ReadOnlyField({ id, label, value, testId, text }: { id: string; label: string; value: string; testId: string; text?: boolean }) {
  return (
    <div className="space-y-1.5">
      <Label htmlFor={id}>{label}</Label>
      <Input
        id={id}
        value={value}
        readOnly
        aria-readonly
        dir={text ? undefined : 'ltr'}
        className={text ? 'bg-slate-50' : 'bg-slate-50 font-mono'}
        data-testid={testId}
      />
    </div>
  );
}

/**
 * Merchant (spec §2): the generated card (id, number, expiry, CVV, balance, merchant, status) and the merchant's
 * checkout form filled with it, read-only, with 'Complete Purchase'. The fallback card says it is not real.
 */
export function MerchantStep({
  card,
  kind,
  merchant,
  amountCents,
  purchasing,
  onComplete,
}: {
  card: CardDetails;
  kind: RunKind;
  merchant: string;
  amountCents: number;
  purchasing: boolean;
  onComplete(): void;
}) {
  const { t } = useLanguage();
  const number = groupCardNumber(card.number);
  const expiry = formatExpiry(card.expiryMonth, card.expiryYear);
  const cardholder = card.cardholderName ?? t('paymentDemo.merchant.cardholderDemo');
  const status = card.status === 'active' ? t('paymentDemo.merchant.status.active') : card.status;

  return (
    <div className="grid gap-6 lg:grid-cols-2">
      <Card data-testid="pd-card" data-demo-card={card.isDemoCard ? 'true' : 'false'}>
        <CardHeader>
          <div className="flex flex-wrap items-center justify-between gap-2">
            <CardTitle>{t('paymentDemo.merchant.cardTitle')}</CardTitle>
            {card.isDemoCard ? (
              <Badge tone="yellow" data-testid="pd-demo-card-badge">
                <FlaskConical className="me-1 h-3.5 w-3.5" aria-hidden />
                {t('paymentDemo.merchant.demoCard')}
              </Badge>
            ) : (
              <Badge tone="green">{t('paymentDemo.merchant.realCard')}</Badge>
            )}
          </div>
        </CardHeader>
        <CardContent>
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
                {card.cvv}
              </Fact>
              <Fact label={t('paymentDemo.merchant.balance')} testId="pd-card-balance">
                {formatCents(card.balanceCents)}
              </Fact>
            </dl>
          </div>
          <dl className="mt-4 grid grid-cols-1 gap-2 text-sm sm:grid-cols-2">
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
              <dd className="break-words text-slate-900">{merchant}</dd>
            </div>
            <div>
              <dt className="text-slate-500">{t('paymentDemo.merchant.status')}</dt>
              <dd className="text-slate-900" data-testid="pd-card-status">
                {status}
              </dd>
            </div>
          </dl>
        </CardContent>
      </Card>

      <Card data-testid="pd-merchant-form">
        <CardHeader>
          <CardTitle className="flex items-center gap-2">
            <ShoppingBag className="h-5 w-5 text-brand-600" aria-hidden />
            <span className="break-words">{t('paymentDemo.merchant.formTitle', { merchant })}</span>
          </CardTitle>
          <CardDescription>{t('paymentDemo.merchant.formDescription')}</CardDescription>
        </CardHeader>
        <CardContent>
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
              <ReadOnlyField id="pd-form-cvv" label={t('paymentDemo.merchant.cvv')} value={card.cvv} testId="pd-form-cvv" />
            </div>
            <div className="flex items-center justify-between border-t border-slate-200 pt-3 text-sm font-semibold">
              <span>{t('paymentDemo.merchant.total')}</span>
              <span className="tabular-nums" dir="ltr" data-testid="pd-form-total">
                {formatCents(amountCents)}
              </span>
            </div>
            <p className={kind === 'simulated' ? 'text-sm text-amber-800' : 'text-sm text-slate-600'} data-testid="pd-merchant-note">
              {kind === 'simulated' ? t('paymentDemo.merchant.simulatedNote') : t('paymentDemo.merchant.realNote', { merchant })}
            </p>
            <Button type="submit" size="lg" className="w-full" disabled={purchasing} data-testid="pd-complete">
              {purchasing ? <Loader2 className="h-4 w-4 animate-spin" aria-hidden /> : <Lock className="h-4 w-4" aria-hidden />}
              {purchasing ? t('paymentDemo.merchant.processing') : t('paymentDemo.merchant.complete')}
            </Button>
          </form>
        </CardContent>
      </Card>
    </div>
  );
}
