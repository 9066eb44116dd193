import { Lock } from 'lucide-react';
import { FormField } from '../../../components/ui/form-field';
import { Input } from '../../../components/ui/input';
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
  return (
    <>
      <FormField
        id="add-card-cardNumber"
        label={t('fundingSources.form.cardNumber')}
        labelAside={
          <span className="text-xs font-semibold text-slate-500" data-testid="card-brand" data-brand={brand}>
            {t(brandLabel[brand])}
          </span>
        }
        error={errorText('cardNumber')}
      >
        {(control) => (
          <Input
            {...control}
            data-testid="card-number"
            inputMode="numeric"
            autoComplete="cc-number"
            dir="ltr"
            placeholder="1234 5678 9012 3456"
            maxLength={CARD_NUMBER_MAX_LENGTH}
            value={form.cardNumber}
            onChange={(e) => onChange('cardNumber', e.target.value)}
            className="font-mono tracking-wider"
          />
        )}
      </FormField>
      <div className="grid grid-cols-2 gap-4">
        <FormField id="add-card-expiry" label={t('fundingSources.form.expiry')} error={errorText('expiry')}>
          {(control) => (
            <Input
              {...control}
              data-testid="card-expiry"
              inputMode="numeric"
              autoComplete="cc-exp"
              dir="ltr"
              placeholder={t('fundingSources.form.expiryPlaceholder')}
              maxLength={EXPIRY_MAX_LENGTH}
              value={form.expiry}
              onChange={(e) => onChange('expiry', e.target.value)}
              className="font-mono"
            />
          )}
        </FormField>
        <FormField id="add-card-cvv" label={t('fundingSources.form.cvv')} error={errorText('cvv')}>
          {(control) => (
            <Input
              {...control}
              data-testid="card-cvv"
              inputMode="numeric"
              autoComplete="cc-csc"
              dir="ltr"
              type="password"
              placeholder={brand === 'amex' ? '1234' : '123'}
              maxLength={cvvLength(brand)}
              value={form.cvv}
              onChange={(e) => onChange('cvv', e.target.value)}
              className="font-mono"
            />
          )}
        </FormField>
      </div>
      <FormField
        id="add-card-name"
        label={t('fundingSources.form.name')}
        description={showNameHint ? t('fundingSources.form.nameHint') : undefined}
        error={errorText('name')}
      >
        {(control) => (
          <Input
            {...control}
            data-testid="card-name"
            autoComplete="cc-name"
            value={form.name}
            onChange={(e) => onChange('name', e.target.value)}
            maxLength={100}
          />
        )}
      </FormField>
      <FormField id="add-card-splitPercentage" label={t('fundingSources.form.split')} error={errorText('splitPercentage')}>
        {(control) => (
          <div className="relative">
            <Input
              {...control}
              data-testid="card-split"
              inputMode="decimal"
              dir="ltr"
              placeholder="50"
              value={form.splitPercentage}
              onChange={(e) => onChange('splitPercentage', e.target.value)}
              className="pe-8"
            />
            <span className="pointer-events-none absolute inset-y-0 end-3 flex items-center text-sm text-slate-400">
              %
            </span>
          </div>
        )}
      </FormField>
      <p className="flex items-start gap-2 text-xs text-slate-500">
        <Lock className="mt-0.5 h-3.5 w-3.5 shrink-0" aria-hidden />
        {t('fundingSources.form.holdNote')}
      </p>
    </>
  );
}
