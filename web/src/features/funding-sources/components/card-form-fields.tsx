import { Lock } from 'lucide-react';
import { Input } from '../../../components/ui/input';
import { Label } from '../../../components/ui/label';
import { useT } from '../../../i18n';
import {
  CARD_NUMBER_MAX_LENGTH,
  cvvLength,
  EXPIRY_MAX_LENGTH,
  type CardField,
  type CardForm,
  type DetectedBrand,
} from '../card-format';
import { brandLabel } from './brand';

function FieldError({ id, text }: { id: string; text: string | undefined }) {
  if (!text) return null;
  return (
    <p id={id} role="alert" className="text-xs text-red-600">
      {text}
    </p>
  );
}

/**
 * The card form's fields (spec §5): number grouped in fours with the brand shown live, MM/YY expiry, CVV (4 digits
 * for American Express), cardholder name, default split percentage. Formatting happens in the parent's onChange.
 */
export function CardFormFields({
  form,
  brand,
  errorText,
  onChange,
  showNameHint,
}: {
  form: CardForm;
  brand: DetectedBrand;
  errorText(field: CardField): string | undefined;
  onChange(field: CardField, value: string): void;
  /** Unverified accounts must use their own name. */
  showNameHint: boolean;
}) {
  const t = useT();
  const invalid = (field: CardField) => !!errorText(field);
  const describedBy = (field: CardField) => (invalid(field) ? `add-card-${field}-error` : undefined);
  return (
    <>
      <div className="space-y-1.5">
        <div className="flex items-center justify-between gap-2">
          <Label htmlFor="add-card-cardNumber">{t('fundingSources.form.cardNumber')}</Label>
          <span className="text-xs font-semibold text-slate-500" data-testid="card-brand" data-brand={brand}>
            {t(brandLabel[brand])}
          </span>
        </div>
        <Input
          id="add-card-cardNumber"
          data-testid="card-number"
          inputMode="numeric"
          autoComplete="cc-number"
          dir="ltr"
          placeholder="1234 5678 9012 3456"
          maxLength={CARD_NUMBER_MAX_LENGTH}
          value={form.cardNumber}
          onChange={(e) => onChange('cardNumber', e.target.value)}
          aria-invalid={invalid('cardNumber')}
          aria-describedby={describedBy('cardNumber')}
          className="font-mono tracking-wider"
        />
        <FieldError id="add-card-cardNumber-error" text={errorText('cardNumber')} />
      </div>
      <div className="grid grid-cols-2 gap-4">
        <div className="space-y-1.5">
          <Label htmlFor="add-card-expiry">{t('fundingSources.form.expiry')}</Label>
          <Input
            id="add-card-expiry"
            data-testid="card-expiry"
            inputMode="numeric"
            autoComplete="cc-exp"
            dir="ltr"
            placeholder={t('fundingSources.form.expiryPlaceholder')}
            maxLength={EXPIRY_MAX_LENGTH}
            value={form.expiry}
            onChange={(e) => onChange('expiry', e.target.value)}
            aria-invalid={invalid('expiry')}
            aria-describedby={describedBy('expiry')}
            className="font-mono"
          />
          <FieldError id="add-card-expiry-error" text={errorText('expiry')} />
        </div>
        <div className="space-y-1.5">
          <Label htmlFor="add-card-cvv">{t('fundingSources.form.cvv')}</Label>
          <Input
            id="add-card-cvv"
            data-testid="card-cvv"
            inputMode="numeric"
            autoComplete="cc-csc"
            dir="ltr"
            type="password"
            placeholder={brand === 'amex' ? '1234' : '123'}
            maxLength={cvvLength(brand)}
            value={form.cvv}
            onChange={(e) => onChange('cvv', e.target.value)}
            aria-invalid={invalid('cvv')}
            aria-describedby={describedBy('cvv')}
            className="font-mono"
          />
          <FieldError id="add-card-cvv-error" text={errorText('cvv')} />
        </div>
      </div>
      <div className="space-y-1.5">
        <Label htmlFor="add-card-name">{t('fundingSources.form.name')}</Label>
        <Input
          id="add-card-name"
          data-testid="card-name"
          autoComplete="cc-name"
          value={form.name}
          onChange={(e) => onChange('name', e.target.value)}
          aria-invalid={invalid('name')}
          aria-describedby={describedBy('name') ?? 'add-card-name-hint'}
          maxLength={100}
        />
        <FieldError id="add-card-name-error" text={errorText('name')} />
        {showNameHint && (
          <p id="add-card-name-hint" className="text-xs text-slate-500">
            {t('fundingSources.form.nameHint')}
          </p>
        )}
      </div>
      <div className="space-y-1.5">
        <Label htmlFor="add-card-splitPercentage">{t('fundingSources.form.split')}</Label>
        <div className="relative">
          <Input
            id="add-card-splitPercentage"
            data-testid="card-split"
            inputMode="decimal"
            dir="ltr"
            placeholder="50"
            value={form.splitPercentage}
            onChange={(e) => onChange('splitPercentage', e.target.value)}
            aria-invalid={invalid('splitPercentage')}
            aria-describedby={describedBy('splitPercentage')}
            className="pe-8"
          />
          <span className="pointer-events-none absolute inset-y-0 end-3 flex items-center text-sm text-slate-400">
            %
          </span>
        </div>
        <FieldError id="add-card-splitPercentage-error" text={errorText('splitPercentage')} />
      </div>
      <p className="flex items-start gap-2 text-xs text-slate-500">
        <Lock className="mt-0.5 h-3.5 w-3.5 shrink-0" aria-hidden />
        {t('fundingSources.form.holdNote')}
      </p>
    </>
  );
}
