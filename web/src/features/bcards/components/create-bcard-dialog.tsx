import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
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
import { useLanguage, type MessageKey } from '../../../i18n';
import { ApiError } from '../../../lib/api';
import { useAuth } from '../../auth/auth-context';
import { bcardsQuery, collectionProgressQuery, createBcardRequest, type Bcard, type CreateBcardBody, type FundingOption } from '../api';
import { cardholderNameFor } from '../bcard-display';
import type { PlannedShare } from '../collect-progress';
import { bcardSplitOptions, centsToDecimal, checkAmountInput, DEFAULT_BCARD_AMOUNT, type AmountCheck } from '../split';
import { CollectProgressPanel } from './collect-progress-panel';

type Step = 'details' | 'funding';

/** How often the dialog asks the server how far the collection has got, while the request is open. */
const PROGRESS_POLL_MS = 400;

const amountErrorText: Record<Exclude<AmountCheck, { ok: true }>['reason'], MessageKey> = {
  invalid: 'bcards.toast.invalidAmountBody',
  minimum: 'bcards.amount.minimum',
  decimals: 'bcards.amount.decimals',
  maximum: 'bcards.amount.maximum',
};

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
 * share. Each opening starts over: details, empty name, amount 100, cleared splits (every percentage empty: the
 * person chooses; the sources' defaults could add up to anything, 120 % with three). The amount is checked as the
 * server checks it ($1.00 to $1,000,000.00, at most 2 decimals, never rounded). While the split is collected, each
 * share shows the status the server has recorded for it (GET /api/virtual-cards/collection-progress by the request's
 * Idempotency-Key).
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
  /** The amount's error shows once the field was left (or Next pressed), not while the first digit is typed. */
  const [amountTouched, setAmountTouched] = useState(false);
  /** null = cleared: one empty row per active source (also once the sources arrive). */
  const [split, setSplit] = useState<SplitValue | null>(null);
  /** The submission being collected (or the last one, until the split changes): its key and planned shares. */
  const [collecting, setCollecting] = useState<{ key: string; shares: PlannedShare[] } | null>(null);
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
    setAmountTouched(false);
    setSplit(null);
    setCollecting(null);
    attempt.current = null;
  }, [open]);

  const options = useMemo<SplitSourceOption[]>(() => bcardSplitOptions(sources), [sources]);
  const splitValue = split ?? initialSplit(options, { cleared: true });
  const amountCheck = checkAmountInput(amount);
  const amountCents = amountCheck.ok ? amountCheck.cents : 0;

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
      // The final statuses (a declined share, the released holds) once the request has answered.
      void progress.refetch();
    },
  });

  const progress = useQuery({
    ...collectionProgressQuery(collecting?.key ?? null),
    refetchInterval: create.isPending ? PROGRESS_POLL_MS : false,
  });

  function onNext(e: FormEvent) {
    e.preventDefault();
    if (!name.trim()) {
      toast({ title: t('bcards.toast.nameRequired'), description: t('bcards.toast.nameRequiredBody'), variant: 'destructive' });
      return;
    }
    if (!amountCheck.ok) {
      setAmountTouched(true);
      toast({ title: t('bcards.toast.invalidAmount'), description: t(amountErrorText[amountCheck.reason]), variant: 'destructive' });
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
    setCollecting({
      key,
      shares: evaluation.shares.map((s) => ({ sourceId: s.sourceId, name: s.name, last4: s.last4, cents: s.cents })),
    });
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
                  aria-invalid={amountTouched && !amountCheck.ok}
                  aria-describedby={amountTouched && !amountCheck.ok ? 'bcard-amount-error' : 'bcard-amount-hint'}
                  onChange={(e) => setAmount(e.target.value)}
                  onBlur={() => setAmountTouched(true)}
                />
              </div>
              {amountTouched && !amountCheck.ok ? (
                <p id="bcard-amount-error" role="alert" className="text-xs text-red-600" data-testid="bcard-amount-error">
                  {t(amountErrorText[amountCheck.reason])}
                </p>
              ) : (
                <p id="bcard-amount-hint" className="text-xs text-slate-500">
                  {t('bcards.create.amountHint', { fee })}
                </p>
              )}
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
              onChange={(next) => {
                setSplit(next);
                // A changed split is a new attempt: the last attempt's statuses no longer describe it.
                if (!create.isPending) setCollecting(null);
              }}
              amountCents={amountCents}
              feePercentage={fee}
              // The processor's balances are known here: a share a source cannot cover is refused before any hold.
              checkAvailable
              pending={create.isPending}
              submitLabel={create.isPending ? t('bcards.create.creating') : t('bcards.create.submit')}
              onSubmit={onCreate}
              submitDisabled={isDemo || amountCents <= 0}
              secondaryAction={backButton}
              footnote={
                <>
                  {demoNote}
                  {collecting && (
                    <CollectProgressPanel planned={collecting.shares} answer={progress.data} pending={create.isPending} />
                  )}
                </>
              }
              messages="bcard"
              testIds={BCARD_TEST_IDS}
            />
          ))}
      </DialogContent>
    </Dialog>
  );
}
