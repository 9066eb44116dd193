import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ArrowLeft, ArrowRight, FlaskConical } from 'lucide-react';
import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import {
  createBcardFundingSources,
  DEFAULT_FEE_PERCENTAGE,
  initialSplit,
  SplitConfigurator,
  type SplitEvaluation,
  type SplitSourceOption,
  type SplitValue,
} from '../../../components/split-configurator';
import { Button } from '../../../components/ui/button';
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from '../../../components/ui/dialog';
import { Input } from '../../../components/ui/input';
import { Label } from '../../../components/ui/label';
import { toast } from '../../../components/ui/use-toast';
import { useLanguage } from '../../../i18n';
import { ApiError } from '../../../lib/api';
import { useAuth } from '../../auth/auth-context';
import { bcardsQuery, createBcardRequest } from '../api';
import { cardholderNameFor } from '../bcard-display';
import { centsToDecimal, DEFAULT_BCARD_AMOUNT, parseAmountInput } from '../split';
import type { Bcard, CreateBcardBody, FundingOption } from '../types';

type Step = 'details' | 'funding';

/** The dialog keeps its own test ids on the configurator's parts (e2e tests and the spec's names). */
const BCARD_TEST_IDS = {
  error: 'bcard-split-error',
  fundsError: 'bcard-funds-error',
  fee: 'bcard-fee',
  total: 'bcard-total',
  submit: 'bcard-create',
} as const;

/**
 * Create bcard (spec §2, §4, §5): 'details' (name, amount, read-only cardholder) then 'funding': the shared split
 * configurator over the active sources, by percentage or by fixed amounts, with the fee, the total and each source's
 * share. Each opening starts over: details, empty name, amount 100, cleared splits (a cleared split shows each
 * source's default percentage).
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
  const { t } = useLanguage();
  const qc = useQueryClient();
  const { user } = useAuth();
  const cardholderName = cardholderNameFor(user, t('bcards.create.cardholderFallback'));
  const fee = feePercentage ?? DEFAULT_FEE_PERCENTAGE;

  const [step, setStep] = useState<Step>('details');
  const [name, setName] = useState('');
  const [amount, setAmount] = useState(DEFAULT_BCARD_AMOUNT);
  /** null = cleared: the rows start from each source's default percentage (also once the sources arrive). */
  const [split, setSplit] = useState<SplitValue | null>(null);
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
    setSplit(null);
    attempt.current = null;
  }, [open]);

  const options = useMemo<SplitSourceOption[]>(
    () =>
      sources
        .filter((s) => s.isActive)
        .map((s) => ({
          id: s.id,
          name: s.name,
          last4: s.last4,
          brand: s.brand ?? 'unknown',
          available: s.balance,
          defaultPercentage: s.defaultSplitPercentage,
        })),
    [sources],
  );
  const splitValue = split ?? initialSplit(options, { useSourceDefaults: true });
  const amountCents = parseAmountInput(amount) ?? 0;

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

  function onCreate(evaluation: SplitEvaluation) {
    // The ref blocks a second click that lands before React re-renders the disabled button.
    if (isDemo || amountCents <= 0 || !evaluation.valid || submitting.current || create.isPending) return;
    submitting.current = true;
    const body: CreateBcardBody = {
      name: name.trim(),
      cardholderName,
      balance: centsToDecimal(amountCents),
      fundingSources: createBcardFundingSources(evaluation),
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

  const backButton = (
    <Button variant="outline" onClick={() => setStep('details')} data-testid="bcard-back" disabled={create.isPending}>
      <ArrowLeft className="h-4 w-4 rtl:-scale-x-100" aria-hidden />
      {t('bcards.create.back')}
    </Button>
  );
  const demoNote = isDemo && (
    <p className="flex items-start gap-2 text-sm text-amber-800" data-testid="bcard-demo-note">
      <FlaskConical className="mt-0.5 h-4 w-4 shrink-0" aria-hidden />
      {t('bcards.create.demoNote')}
    </p>
  );

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
              {/* Left-to-right as a whole, so the $ sign and the padding for it sit on the same side in Arabic. */}
              <div className="relative" dir="ltr">
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

        {step === 'funding' &&
          (options.length === 0 ? (
            <div className="space-y-4">
              <p className="rounded-lg border border-amber-200 bg-amber-50 p-4 text-sm text-amber-900" role="alert" data-testid="bcard-no-sources">
                {t('bcards.create.noSources')}
              </p>
              {demoNote}
              <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-between">
                {backButton}
                <Button disabled data-testid="bcard-create">
                  {t('bcards.create.submit')}
                </Button>
              </div>
            </div>
          ) : (
            <SplitConfigurator
              sources={options}
              value={splitValue}
              onChange={setSplit}
              amountCents={amountCents}
              feePercentage={fee}
              // The processor's balances are known here: a share a source cannot cover is refused before any hold.
              checkAvailable
              pending={create.isPending}
              submitLabel={create.isPending ? t('bcards.create.creating') : t('bcards.create.submit')}
              onSubmit={onCreate}
              submitDisabled={isDemo || amountCents <= 0}
              secondaryAction={backButton}
              footnote={demoNote}
              messages="bcard"
              testIds={BCARD_TEST_IDS}
            />
          ))}
      </DialogContent>
    </Dialog>
  );
}
