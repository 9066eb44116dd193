import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ArrowLeft, Loader2, Undo2 } from 'lucide-react';
import { useRef, useState, type FormEvent } from 'react';
import { Button } from '../../../components/ui/button';
import { Input } from '../../../components/ui/input';
import { Label } from '../../../components/ui/label';
import { toast } from '../../../components/ui/use-toast';
import { useT } from '../../../i18n';
import { ApiError, messageOf } from '../../../lib/api';
import { followField, type FieldErrors } from '../../../lib/form-errors';
import { useIdempotencyKeys } from '../../../lib/idempotency';
import {
  createRefundRequest,
  MERCHANTS_QUERY_KEY,
  paymentIntentsKey,
  type CreateRefundBody,
  type PaymentIntent,
  type Refund,
  type RefundReason,
} from '../api';
import { formatIntentAmount } from '../display';
import { checkRefundAmount, REFUND_REASONS, refundableCents } from '../refunds';

const selectClass = 'h-10 w-full rounded-md border border-slate-300 bg-white px-3 text-sm text-slate-900';

/**
 * Refund a succeeded payment: all that is left or part of it (in dollars), with an optional reason; then a
 * confirmation naming the amount, then the refund. The amount is always sent, the one the merchant confirmed, so a
 * refund made elsewhere meanwhile is refused (over-refund) instead of giving back a different sum than was shown.
 */
export function RefundForm({
  merchantId,
  intent,
  onDone,
  onCancel,
}: {
  merchantId: string;
  intent: PaymentIntent;
  onDone(refund: Refund): void;
  onCancel(): void;
}) {
  const t = useT();
  const qc = useQueryClient();
  const keys = useIdempotencyKeys();
  const left = refundableCents(intent);
  const money = (cents: number) => formatIntentAmount(cents, intent.currency);
  const [kind, setKind] = useState<'full' | 'partial'>('full');
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState<RefundReason | ''>('');
  const [errors, setErrors] = useState<FieldErrors<'amount'>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [review, setReview] = useState<{ cents: number } | null>(null);
  const amountRef = useRef<HTMLInputElement>(null);

  const problemText = (amountInput: string) => {
    const check = checkRefundAmount(amountInput, left);
    return check.problem ? t(check.problem, { amount: money(left) }) : null;
  };

  const refund = useMutation({
    mutationFn: async (body: CreateRefundBody) => {
      const attempt = keys.begin(body);
      try {
        const answer = await createRefundRequest(merchantId, body, attempt.key);
        keys.settle(attempt);
        return answer;
      } catch (error) {
        keys.settle(attempt, error);
        throw error;
      }
    },
    onSettled: () => {
      // The intent's amount_refunded and its refund history changed (or were found to have changed elsewhere).
      void qc.invalidateQueries({ queryKey: paymentIntentsKey(merchantId) });
      void qc.invalidateQueries({ queryKey: [...MERCHANTS_QUERY_KEY, merchantId, 'refunds', intent.id] });
    },
    onSuccess: (r) => {
      if (r.status === 'failed') {
        toast({ title: t('merchants.refund.failedToast'), description: r.failure_reason ?? undefined, variant: 'destructive' });
      } else {
        toast({
          title: t('merchants.refund.createdToast', { amount: money(r.amount) }),
          description: r.status === 'pending' ? t('merchants.refund.createdPending') : t('merchants.refund.createdSucceeded'),
        });
      }
      onDone(r);
    },
    onError: (error) => {
      const param = error instanceof ApiError ? error.param : undefined;
      const message = messageOf(error) ?? t('merchants.refund.createFailed');
      // Back to the form, the refusal under the field it names (over-refund: the amount).
      setReview(null);
      if (param === 'amount' && kind === 'partial') setErrors({ amount: message });
      else setFormError(message);
      toast({ title: t('merchants.refund.createFailed'), description: message, variant: 'destructive' });
    },
  });

  function onReview(e: FormEvent) {
    e.preventDefault();
    setFormError(null);
    if (kind === 'full') return setReview({ cents: left });
    const check = checkRefundAmount(amount, left);
    if (check.problem) {
      setErrors({ amount: t(check.problem, { amount: money(left) }) });
      amountRef.current?.focus();
      return;
    }
    setErrors({});
    setReview({ cents: check.cents });
  }

  function onConfirm() {
    if (!review || refund.isPending) return;
    refund.mutate({ payment_intent: intent.id, amount: review.cents, ...(reason ? { reason } : {}) });
  }

  if (review) {
    return (
      <div className="space-y-4" data-testid="refund-confirm-step">
        <h3 className="text-base font-semibold text-slate-900">{t('merchants.refund.confirmTitle')}</h3>
        <p className="text-sm text-slate-700" data-testid="refund-confirm-text">
          {t('merchants.refund.confirmBody', { amount: money(review.cents), total: money(intent.amount_received) })}
        </p>
        {reason && <p className="text-sm text-slate-600">{t('merchants.refund.confirmReason', { reason: t(`merchants.refund.reason.${reason}`) })}</p>}
        <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
          <Button variant="outline" onClick={() => setReview(null)} disabled={refund.isPending} data-testid="refund-back">
            <ArrowLeft className="h-4 w-4 rtl:-scale-x-100" aria-hidden />
            {t('merchants.refund.back')}
          </Button>
          <Button variant="destructive" onClick={onConfirm} disabled={refund.isPending} data-testid="refund-confirm" autoFocus>
            {refund.isPending ? <Loader2 className="h-4 w-4 animate-spin" aria-hidden /> : <Undo2 className="h-4 w-4" aria-hidden />}
            {t('merchants.refund.confirm', { amount: money(review.cents) })}
          </Button>
        </div>
      </div>
    );
  }

  return (
    <form onSubmit={onReview} noValidate className="space-y-4" data-testid="refund-form">
      <p className="text-sm text-slate-600" data-testid="refund-left">
        {t('merchants.refund.left', { amount: money(left) })}
      </p>
      <fieldset className="space-y-2">
        <legend className="mb-1 text-sm font-medium text-slate-700">{t('merchants.refund.kind')}</legend>
        <label className="flex items-center gap-2 text-sm">
          <input
            type="radio"
            name="refund-kind"
            className="h-4 w-4 accent-brand-600"
            checked={kind === 'full'}
            onChange={() => {
              setKind('full');
              setErrors({});
              setFormError(null);
            }}
            data-testid="refund-kind-full"
          />
          {t('merchants.refund.full', { amount: money(left) })}
        </label>
        <label className="flex items-center gap-2 text-sm">
          <input
            type="radio"
            name="refund-kind"
            className="h-4 w-4 accent-brand-600"
            checked={kind === 'partial'}
            onChange={() => {
              setKind('partial');
              setFormError(null);
              setTimeout(() => amountRef.current?.focus(), 0);
            }}
            data-testid="refund-kind-partial"
          />
          {t('merchants.refund.partial')}
        </label>
      </fieldset>
      {kind === 'partial' && (
        <div className="space-y-1.5">
          <Label htmlFor="refund-amount">{t('merchants.refund.amount')}</Label>
          <div className="relative" dir="ltr">
            <span className="pointer-events-none absolute inset-y-0 left-3 flex items-center text-sm text-slate-500" aria-hidden>
              $
            </span>
            <Input
              ref={amountRef}
              id="refund-amount"
              data-testid="refund-amount"
              inputMode="decimal"
              autoComplete="off"
              className="pl-7"
              placeholder="0.00"
              value={amount}
              maxLength={16}
              aria-invalid={!!errors.amount}
              aria-describedby={errors.amount ? 'refund-amount-error refund-amount-hint' : 'refund-amount-hint'}
              onChange={(e) => {
                setAmount(e.target.value);
                setFormError(null);
                setErrors((shown) => followField(shown, 'amount', problemText(e.target.value)));
              }}
            />
          </div>
          <p id="refund-amount-hint" className="text-xs text-slate-500">
            {t('merchants.refund.amountHint', { amount: money(left) })}
          </p>
          {errors.amount && (
            <p id="refund-amount-error" role="alert" className="text-xs text-red-600" data-testid="refund-amount-error">
              {errors.amount}
            </p>
          )}
        </div>
      )}
      <div className="space-y-1.5">
        <Label htmlFor="refund-reason">{t('merchants.refund.reason')}</Label>
        <select
          id="refund-reason"
          className={selectClass}
          value={reason}
          onChange={(e) => setReason(REFUND_REASONS.find((r) => r === e.target.value) ?? '')}
          data-testid="refund-reason"
        >
          <option value="">{t('merchants.refund.reasonNone')}</option>
          {REFUND_REASONS.map((r) => (
            <option key={r} value={r}>
              {t(`merchants.refund.reason.${r}`)}
            </option>
          ))}
        </select>
      </div>
      {formError && (
        <p className="text-sm text-red-600" role="alert" data-testid="refund-error">
          {formError}
        </p>
      )}
      <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
        <Button type="button" variant="outline" onClick={onCancel}>
          {t('common.cancel')}
        </Button>
        <Button type="submit" data-testid="refund-review">
          {t('merchants.refund.review')}
        </Button>
      </div>
    </form>
  );
}
