import { CreditCard, Info, ListChecks, Sparkles, Wand2 } from 'lucide-react';
import type { FormEvent } from 'react';
import { Button } from '../../../components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../../../components/ui/card';
import { Input } from '../../../components/ui/input';
import { Label } from '../../../components/ui/label';
import { useLanguage } from '../../../i18n';
import { amountInputToCents, MAX_AMOUNT_CENTS, type Scenario } from '../flow';

/**
 * Checkout (spec §2): Merchant Name, Amount, the Success/Failure radio (only with demo mode off; the failure is a
 * labelled simulation for everyone) and 'Pay with bpay', disabled unless the amount is above 0.
 */
export function CheckoutStep({
  merchant,
  onMerchantChange,
  amount,
  onAmountChange,
  feePercentage,
  showScenario,
  scenario,
  onScenarioChange,
  onPay,
  notice,
}: {
  merchant: string;
  onMerchantChange(v: string): void;
  amount: string;
  onAmountChange(v: string): void;
  feePercentage: number;
  showScenario: boolean;
  scenario: Scenario;
  onScenarioChange(s: Scenario): void;
  onPay(): void;
  /** What happened to the last run's bcard (canceled and refunded, or never confirmed), if anything. */
  notice: string | null;
}) {
  const { t } = useLanguage();
  const amountCents = amountInputToCents(amount);
  const amountOk = amountCents > 0 && amountCents <= MAX_AMOUNT_CENTS;
  const merchantOk = merchant.trim().length > 0;

  function submit(e: FormEvent) {
    e.preventDefault();
    if (amountOk && merchantOk) onPay();
  }

  return (
    <div className="grid gap-6 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
      <Card data-testid="pd-checkout">
        <CardHeader>
          <CardTitle level={2} tabIndex={-1} data-step-heading data-testid="pd-step-heading" className="outline-none">
            {t('paymentDemo.checkout.title')}
          </CardTitle>
          <CardDescription>{t('paymentDemo.checkout.description')}</CardDescription>
        </CardHeader>
        <CardContent className="space-y-5">
          {notice && (
            <p className="flex items-start gap-2 rounded-lg border border-blue-200 bg-blue-50 p-3 text-sm text-blue-900" data-testid="pd-notice">
              <Info className="mt-0.5 h-4 w-4 shrink-0" aria-hidden />
              <span className="min-w-0">{notice}</span>
            </p>
          )}
          <form onSubmit={submit} noValidate className="space-y-5">
            <div className="space-y-1.5">
              <Label htmlFor="pd-merchant">{t('paymentDemo.checkout.merchant')}</Label>
              <Input
                id="pd-merchant"
                data-testid="pd-merchant"
                value={merchant}
                maxLength={80}
                onChange={(e) => onMerchantChange(e.target.value)}
                aria-invalid={!merchantOk}
                aria-describedby={merchantOk ? undefined : 'pd-merchant-error'}
              />
              {!merchantOk && (
                <p id="pd-merchant-error" className="text-xs text-red-600">
                  {t('paymentDemo.checkout.merchantRequired')}
                </p>
              )}
            </div>
            <div className="space-y-1.5">
              <Label htmlFor="pd-amount">{t('paymentDemo.checkout.amount')}</Label>
              <div className="relative">
                <span className="pointer-events-none absolute inset-y-0 start-3 flex items-center text-sm text-slate-400" dir="ltr">
                  $
                </span>
                <Input
                  id="pd-amount"
                  data-testid="pd-amount"
                  type="number"
                  min={0}
                  step={0.01}
                  inputMode="decimal"
                  dir="ltr"
                  className="ps-7"
                  value={amount}
                  onChange={(e) => onAmountChange(e.target.value)}
                  aria-invalid={!amountOk}
                  aria-describedby="pd-amount-hint"
                />
              </div>
              <p id="pd-amount-hint" className={amountOk ? 'text-xs text-slate-500' : 'text-xs text-red-600'}>
                {amountOk ? t('paymentDemo.checkout.amountHint', { fee: feePercentage }) : t('paymentDemo.checkout.amountInvalid')}
              </p>
            </div>

            {showScenario && (
              <fieldset className="space-y-2" data-testid="pd-scenario">
                <legend className="mb-1 text-sm font-medium text-slate-700">{t('paymentDemo.checkout.scenario')}</legend>
                <div className="flex flex-wrap gap-x-6 gap-y-2">
                  {(['success', 'failure'] as const).map((s) => (
                    <label key={s} className="flex items-center gap-2 text-sm text-slate-800">
                      <input
                        type="radio"
                        name="pd-scenario"
                        value={s}
                        checked={scenario === s}
                        onChange={() => onScenarioChange(s)}
                        data-testid={`pd-scenario-${s}`}
                        className="h-4 w-4 accent-brand-600"
                      />
                      {s === 'success' ? t('paymentDemo.checkout.success') : t('paymentDemo.checkout.failure')}
                    </label>
                  ))}
                </div>
                <p className="text-xs text-amber-800" data-testid="pd-failure-note">
                  {t('paymentDemo.checkout.failureNote')}
                </p>
              </fieldset>
            )}

            <Button type="submit" size="lg" className="w-full" disabled={!amountOk || !merchantOk} data-testid="pd-pay">
              <CreditCard className="h-4 w-4" aria-hidden />
              {t('paymentDemo.checkout.pay')}
            </Button>
          </form>
        </CardContent>
      </Card>

      <Card data-testid="pd-how" className="bg-brand-50/40">
        <CardHeader>
          <CardTitle className="flex items-center gap-2">
            <Sparkles className="h-5 w-5 text-brand-600" aria-hidden />
            {t('paymentDemo.how.title')}
          </CardTitle>
        </CardHeader>
        <CardContent>
          <ol className="space-y-4">
            {(
              [
                ['paymentDemo.how.step1.title', 'paymentDemo.how.step1.body', ListChecks],
                ['paymentDemo.how.step2.title', 'paymentDemo.how.step2.body', CreditCard],
                ['paymentDemo.how.step3.title', 'paymentDemo.how.step3.body', Wand2],
              ] as const
            ).map(([title, body, Icon], i) => (
              <li key={title} className="flex gap-3" data-testid="pd-how-step">
                <span
                  className="flex h-8 w-8 shrink-0 items-center justify-center rounded-full bg-brand-600 text-sm font-semibold text-white"
                  aria-hidden
                >
                  {i + 1}
                </span>
                <div className="min-w-0">
                  <p className="flex items-center gap-1.5 font-medium text-slate-900">
                    <Icon className="h-4 w-4 text-brand-600" aria-hidden />
                    {t(title)}
                  </p>
                  <p className="text-sm text-slate-600">{t(body)}</p>
                </div>
              </li>
            ))}
          </ol>
        </CardContent>
      </Card>
    </div>
  );
}
