import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ArrowLeft, ArrowRight, FlaskConical, Loader2 } from 'lucide-react';
import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { Button } from '../../../components/ui/button';
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from '../../../components/ui/dialog';
import { Input } from '../../../components/ui/input';
import { Label } from '../../../components/ui/label';
import { toast } from '../../../components/ui/use-toast';
import { useLanguage } from '../../../i18n';
import { ApiError } from '../../../lib/api';
import { useAuth } from '../../auth/auth-context';
import { bcardsQuery, createBcardRequest } from '../api';
import { cardholderNameFor, isolateFor } from '../bcard-display';
import {
  centsToDecimal,
  clampPercentage,
  DEFAULT_BCARD_AMOUNT,
  DEFAULT_FEE_PERCENTAGE,
  formatCents,
  formatMoney,
  fundingSourcesBody,
  parseAmountInput,
  planSplit,
} from '../split';
import type { Bcard, CreateBcardBody, FundingOption } from '../types';

type Step = 'details' | 'funding';

/** Keeps a typed percentage within 0–100 (spec §5) while still allowing an empty field or a trailing dot. */
function clampTyped(value: string): string {
  if (value.trim() === '') return '';
  const n = Number(value);
  if (!Number.isFinite(n)) return '';
  return n > 100 || n < 0 ? String(clampPercentage(n)) : value;
}

/**
 * Create bcard (spec §2, §4, §5): 'details' (name, amount, read-only cardholder) then 'funding' (a percentage per
 * active source, the fee, the total and each source's share). Each opening starts over: details, empty name,
 * amount 100, cleared splits (a cleared split shows the source's default percentage).
 */
export function CreateBcardDialog({
  open,
  onOpenChange,
  sources,
  feePercentage,
  isDemo,
  onMoneyMoved,
}: {
  open: boolean;
  onOpenChange(open: boolean): void;
  /** All the user's sources; only active ones can fund a bcard. */
  sources: readonly FundingOption[];
  /** From the plan's benefits; 2.9 % when it does not say (spec §9). */
  feePercentage: number | undefined;
  /** Demo mode: the dialog can be explored with the sample sources, but nothing is created. */
  isDemo: boolean;
  /** Called when a request may have moved money (balances and transactions to refresh). */
  onMoneyMoved(): void;
}) {
  const { t, dir } = useLanguage();
  const iso = isolateFor(dir);
  const qc = useQueryClient();
  const { user } = useAuth();
  const cardholderName = cardholderNameFor(user, t('bcards.create.cardholderFallback'));
  const fee = feePercentage ?? DEFAULT_FEE_PERCENTAGE;

  const [step, setStep] = useState<Step>('details');
  const [name, setName] = useState('');
  const [amount, setAmount] = useState(DEFAULT_BCARD_AMOUNT);
  const [splits, setSplits] = useState<Record<string, string>>({});
  /*
   * One Idempotency-Key per submission. It is reused only to resend the very same body after an attempt that got
   * no answer (network failure), which is exactly when the first attempt may have gone through.
   */
  const attempt = useRef<{ key: string; body: string; answered: boolean } | null>(null);
  const submitting = useRef(false);

  useEffect(() => {
    if (!open) return;
    setStep('details');
    setName('');
    setAmount(DEFAULT_BCARD_AMOUNT);
    setSplits({});
    attempt.current = null;
  }, [open]);

  const active = useMemo(() => sources.filter((s) => s.isActive), [sources]);
  const percentageOf = (s: FundingOption) => splits[s.id] ?? String(s.defaultSplitPercentage);
  const amountCents = parseAmountInput(amount) ?? 0;
  const plan = planSplit(
    amountCents,
    fee,
    active.map((s) => ({
      id: s.id,
      name: s.name,
      balance: s.balance,
      percentage: clampPercentage(Number(percentageOf(s) || '0')),
    })),
  );

  const create = useMutation({
    mutationFn: ({ body, key }: { body: CreateBcardBody; key: string }) => createBcardRequest(body, key),
    onSuccess: (bcard: Bcard) => {
      qc.setQueryData(bcardsQuery().queryKey, (list) => (list ? [bcard, ...list] : list));
      void qc.invalidateQueries({ queryKey: bcardsQuery().queryKey });
      onMoneyMoved();
      toast({ title: t('bcards.toast.created'), description: t('bcards.toast.createdBody', { name: bcard.name }) });
      onOpenChange(false);
    },
    onError: (error) => {
      onMoneyMoved();
      const message = error instanceof ApiError ? (error.serverMessage ?? error.message) : error.message;
      if (message.includes('Insufficient funds')) {
        toast({ title: t('bcards.toast.insufficient'), description: t('bcards.toast.insufficientBody'), variant: 'destructive' });
        return;
      }
      toast({
        title: t('bcards.toast.failed'),
        description: (error instanceof ApiError ? error.serverMessage : undefined) ?? t('bcards.toast.failedFallback'),
        variant: 'destructive',
      });
    },
    onSettled: () => {
      submitting.current = false;
    },
  });

  function onNext(e: FormEvent) {
    e.preventDefault();
    if (!name.trim()) {
      toast({ title: t('bcards.toast.nameRequired'), description: t('bcards.toast.nameRequiredBody'), variant: 'destructive' });
      return;
    }
    if (amountCents <= 0) {
      toast({ title: t('bcards.toast.invalidAmount'), description: t('bcards.toast.invalidAmountBody'), variant: 'destructive' });
      return;
    }
    setStep('funding');
  }

  const canCreate = !isDemo && active.length > 0 && plan.totalOk && plan.insufficient.length === 0 && amountCents > 0;

  function onCreate(e: FormEvent) {
    e.preventDefault();
    // The ref blocks a second click that lands before React re-renders the disabled button.
    if (!canCreate || submitting.current || create.isPending) return;
    submitting.current = true;
    const body: CreateBcardBody = {
      name: name.trim(),
      cardholderName,
      balance: centsToDecimal(amountCents),
      fundingSources: fundingSourcesBody(plan),
      spendingLimit: centsToDecimal(amountCents),
      interval: 'monthly',
    };
    const json = JSON.stringify(body);
    const previous = attempt.current;
    const key = previous && !previous.answered && previous.body === json ? previous.key : crypto.randomUUID();
    const current = { key, body: json, answered: false };
    attempt.current = current;
    create.mutate(
      { body, key },
      {
        onSuccess: () => {
          current.answered = true;
        },
        onError: (error) => {
          if (error instanceof ApiError) current.answered = true;
        },
      },
    );
  }

  const splitInvalid = active.length > 0 && !plan.totalOk;

  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent closeLabel={t('common.close')} data-testid="create-bcard-dialog" data-step={step} className="max-w-xl">
        <DialogHeader>
          <DialogTitle>{t('bcards.create.title')}</DialogTitle>
          <DialogDescription>
            {step === 'details' ? t('bcards.create.detailsDescription') : t('bcards.create.fundingDescription')}
          </DialogDescription>
        </DialogHeader>
        <p className="mb-4 text-xs font-medium text-slate-500">
          {t('bcards.create.stepOf', { n: step === 'details' ? 1 : 2 })}
        </p>

        {step === 'details' && (
          <form onSubmit={onNext} noValidate className="space-y-4">
            <div className="space-y-1.5">
              <Label htmlFor="bcard-name">{t('bcards.create.name')}</Label>
              <Input
                id="bcard-name"
                data-testid="bcard-name"
                value={name}
                maxLength={100}
                placeholder={t('bcards.create.namePlaceholder')}
                onChange={(e) => setName(e.target.value)}
                autoFocus
              />
            </div>
            <div className="space-y-1.5">
              <Label htmlFor="bcard-amount">{t('bcards.create.amount')}</Label>
              <div className="relative">
                <span className="pointer-events-none absolute inset-y-0 start-3 flex items-center text-sm text-slate-400" dir="ltr">
                  $
                </span>
                <Input
                  id="bcard-amount"
                  data-testid="bcard-amount"
                  type="number"
                  min={1}
                  step={0.01}
                  inputMode="decimal"
                  dir="ltr"
                  className="ps-7"
                  value={amount}
                  onChange={(e) => setAmount(e.target.value)}
                />
              </div>
              <p className="text-xs text-slate-500">{t('bcards.create.amountHint', { fee })}</p>
            </div>
            <div className="space-y-1.5">
              <Label htmlFor="bcard-cardholder">{t('bcards.create.cardholder')}</Label>
              <Input id="bcard-cardholder" data-testid="bcard-cardholder" value={cardholderName} readOnly aria-readonly className="bg-slate-50" />
            </div>
            <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
              <Button variant="outline" onClick={() => onOpenChange(false)}>
                {t('common.cancel')}
              </Button>
              <Button type="submit" data-testid="bcard-next">
                {t('bcards.create.next')}
                <ArrowRight className="h-4 w-4 rtl:-scale-x-100" aria-hidden />
              </Button>
            </div>
          </form>
        )}

        {step === 'funding' && (
          <form onSubmit={onCreate} noValidate className="space-y-4">
            {active.length === 0 ? (
              <p className="rounded-lg border border-amber-200 bg-amber-50 p-4 text-sm text-amber-900" role="alert" data-testid="bcard-no-sources">
                {t('bcards.create.noSources')}
              </p>
            ) : (
              <fieldset className="space-y-3">
                <legend className="mb-2 text-sm font-medium text-slate-700">{t('bcards.create.splitLegend')}</legend>
                {active.map((s, i) => {
                  const share = plan.shares[i];
                  const inputId = `bcard-split-${s.id}`;
                  const short = plan.insufficient.some((x) => x.id === s.id);
                  return (
                    <div
                      key={s.id}
                      className="flex items-center gap-3 rounded-lg border border-slate-200 p-3"
                      data-testid="bcard-split-row"
                    >
                      <div className="min-w-0 flex-1">
                        <Label htmlFor={inputId} className="block truncate">
                          {s.name} <span className="font-mono text-slate-400" dir="ltr">•••• {s.last4}</span>
                        </Label>
                        <p className="text-xs text-slate-500">
                          {s.balance === null
                            ? t('bcards.create.balanceUnknown')
                            : t('bcards.create.available', { amount: iso(formatMoney(s.balance)) })}
                        </p>
                      </div>
                      <div className="relative w-24 shrink-0">
                        <Input
                          id={inputId}
                          data-testid="bcard-split"
                          type="number"
                          min={0}
                          max={100}
                          step={0.1}
                          inputMode="decimal"
                          dir="ltr"
                          className="pe-7 text-end"
                          value={percentageOf(s)}
                          onChange={(e) => setSplits((prev) => ({ ...prev, [s.id]: clampTyped(e.target.value) }))}
                          aria-invalid={splitInvalid || short}
                        />
                        <span className="pointer-events-none absolute inset-y-0 end-3 flex items-center text-sm text-slate-400">
                          %
                        </span>
                      </div>
                      <p
                        className={`w-24 shrink-0 text-end text-sm font-semibold tabular-nums ${short ? 'text-red-600' : 'text-slate-900'}`}
                        dir="ltr"
                        data-testid="bcard-split-amount"
                      >
                        {formatCents(share?.requiredCents ?? 0)}
                      </p>
                    </div>
                  );
                })}
              </fieldset>
            )}

            <dl className="space-y-1.5 rounded-lg bg-slate-50 p-4 text-sm" data-testid="bcard-summary">
              <div className="flex justify-between gap-4">
                <dt className="text-slate-600">{t('bcards.create.summaryAmount')}</dt>
                <dd className="tabular-nums" dir="ltr">{formatCents(plan.amountCents)}</dd>
              </div>
              <div className="flex justify-between gap-4">
                <dt className="text-slate-600">{t('bcards.create.summaryFee', { fee })}</dt>
                <dd className="tabular-nums" dir="ltr" data-testid="bcard-fee">{formatCents(plan.feeCents)}</dd>
              </div>
              <div className="flex justify-between gap-4 border-t border-slate-200 pt-1.5 font-semibold">
                <dt>{t('bcards.create.summaryTotal')}</dt>
                <dd className="tabular-nums" dir="ltr" data-testid="bcard-total">{formatCents(plan.totalCents)}</dd>
              </div>
              <div className="flex justify-between gap-4 text-xs text-slate-500">
                <dt>{t('bcards.create.summarySplit')}</dt>
                <dd className="tabular-nums" dir="ltr">{t('bcards.create.percent', { n: plan.percentageTotal })}</dd>
              </div>
            </dl>

            {(splitInvalid || plan.insufficient.length > 0) && (
              <div className="space-y-2 text-sm text-red-600" role="alert" data-testid="bcard-split-error">
                {splitInvalid && <p className="font-medium">{t('bcards.create.splitError')}</p>}
                {plan.insufficient.length > 0 && (
                  <div data-testid="bcard-funds-error">
                    <p className="font-medium">{t('bcards.create.fundsError')}</p>
                    <ul className="mt-1 list-disc space-y-0.5 ps-5">
                      {plan.insufficient.map((s) => (
                        <li key={s.id}>
                          {t('bcards.create.fundsLine', {
                            name: s.name,
                            needs: iso(formatCents(s.requiredCents)),
                            has: iso(formatCents(s.availableCents ?? 0)),
                          })}
                        </li>
                      ))}
                    </ul>
                  </div>
                )}
              </div>
            )}
            {isDemo && (
              <p className="flex items-start gap-2 text-sm text-amber-800" data-testid="bcard-demo-note">
                <FlaskConical className="mt-0.5 h-4 w-4 shrink-0" aria-hidden />
                {t('bcards.create.demoNote')}
              </p>
            )}

            <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-between">
              <Button variant="outline" onClick={() => setStep('details')} data-testid="bcard-back" disabled={create.isPending}>
                <ArrowLeft className="h-4 w-4 rtl:-scale-x-100" aria-hidden />
                {t('bcards.create.back')}
              </Button>
              <Button type="submit" disabled={!canCreate || create.isPending} data-testid="bcard-create">
                {create.isPending && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
                {create.isPending ? t('bcards.create.creating') : t('bcards.create.submit')}
              </Button>
            </div>
          </form>
        )}
      </DialogContent>
    </Dialog>
  );
}
