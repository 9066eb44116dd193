import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { Button } from '../../../components/ui/button';
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from '../../../components/ui/dialog';
import { Input } from '../../../components/ui/input';
import { Label } from '../../../components/ui/label';
import { Switch } from '../../../components/ui/switch';
import { toast } from '../../../components/ui/use-toast';
import { useLanguage, type MessageKey } from '../../../i18n';
import { ApiError } from '../../../lib/api';
import { createTier, keepTier, updateTier, type AdminTier, type TierBody, type TierFeature, type TierLimits } from '../api';
import {
  amountNumber,
  bpsToFraction,
  feePercentToBps,
  fractionToPercent,
  isUnlimited,
  LIMIT_KEYS,
  MAX_LIMIT,
  MAX_MONTHLY_PRICE_CENTS,
  parseLimit,
  parsePriceCents,
  TIER_NAME_PATTERN,
} from '../display';

export const FEATURE_OPTIONS = [
  'basic_funding_sources',
  'unlimited_funding_sources',
  'priority_support',
  'advanced_analytics',
  'api_access',
  'custom_branding',
  'white_label',
  'dedicated_account_manager',
] as const satisfies readonly TierFeature[];

export const limitLabel: Record<keyof TierLimits, MessageKey> = {
  fundingSources: 'admin.tiers.limit.fundingSources',
  monthlyTransactions: 'admin.tiers.limit.monthlyTransactions',
  apiCallsPerMonth: 'admin.tiers.limit.apiCallsPerMonth',
  bcardGenerationLimit: 'admin.tiers.limit.bcardGenerationLimit',
};

/** Spec §3: defaults for a new tier. */
const DEFAULT_LIMITS: Record<keyof TierLimits, string> = {
  fundingSources: '5',
  monthlyTransactions: '100',
  apiCallsPerMonth: '1000',
  bcardGenerationLimit: '10',
};

export function featureLabel(t: (k: MessageKey) => string, f: string): string {
  const key = `admin.tiers.feature.${f}` as MessageKey;
  const text = t(key);
  return text === key ? f.replace(/_/g, ' ') : text;
}

function serverError(e: unknown): string | undefined {
  if (!(e instanceof ApiError)) return undefined;
  const b = e.body as { error?: unknown } | null;
  return typeof b?.error === 'string' ? b.error : e.serverMessage;
}

type Field = 'name' | 'displayName' | 'price' | 'fee' | keyof TierLimits;
type FieldErrors = Partial<Record<Field, string>>;
/** In the form's order: the first wrong one gets the focus. */
const FIELDS: Field[] = ['name', 'displayName', 'price', 'fee', ...LIMIT_KEYS];

/** What is wrong with a field's value, by the server's rules (api/src/modules/admin/model.ts, tiers.ts), or null. */
export function fieldProblem(field: Field, value: string): MessageKey | null {
  switch (field) {
    case 'name':
      return TIER_NAME_PATTERN.test(value.trim()) ? null : 'admin.tiers.form.nameInvalid';
    case 'displayName': {
      const v = value.trim();
      return v === '' || v.length > 80 || /[\u0000-\u001f\u007f]/.test(v) ? 'admin.tiers.form.displayNameInvalid' : null;
    }
    case 'price':
      return parsePriceCents(value) === null ? 'admin.tiers.form.priceInvalid' : null;
    case 'fee':
      return feePercentToBps(value) === null ? 'admin.tiers.form.feeInvalid' : null;
    default:
      return parseLimit(value) === null ? 'admin.tiers.form.limitInvalid' : null;
  }
}

/** The form field a server error's `param` names (limits.fundingSources -> fundingSources). */
function fieldOfParam(param: string | undefined): Field | null {
  if (!param) return null;
  const p = param.replace(/^limits\./, '');
  if (p === 'monthlyPrice') return 'price';
  if (p === 'transactionFeeRate') return 'fee';
  if (p === 'name' || p === 'displayName' || (LIMIT_KEYS as string[]).includes(p)) return p as Field;
  return null;
}

/** The tier being edited is the plan new accounts start on (api: DEFAULT_TIER_NAME). */
export const isDefaultTier = (tier: Pick<AdminTier, 'name'> | null) => tier?.name === 'free';

export function TierFormDialog({ tier, open, onOpenChange }: { tier: AdminTier | null; open: boolean; onOpenChange(o: boolean): void }) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      {open && <TierForm key={tier?.id ?? 'new'} tier={tier} onDone={() => onOpenChange(false)} />}
    </Dialog>
  );
}

function TierForm({ tier, onDone }: { tier: AdminTier | null; onDone(): void }) {
  const { t } = useLanguage();
  const qc = useQueryClient();
  const isDefault = isDefaultTier(tier);
  const [name, setName] = useState(tier?.name ?? '');
  const [displayName, setDisplayName] = useState(tier?.displayName ?? '');
  const [price, setPrice] = useState(tier ? String(amountNumber(tier.monthlyPrice)) : '0');
  const [fee, setFee] = useState(tier ? fractionToPercent(tier.transactionFeeRate) : '2.9');
  const [features, setFeatures] = useState<TierFeature[]>(tier?.features ?? []);
  const [limits, setLimits] = useState<Record<keyof TierLimits, string>>(() =>
    tier
      ? (Object.fromEntries(LIMIT_KEYS.map((k) => [k, isUnlimited(tier.limits[k]) ? '0' : String(tier.limits[k])])) as Record<keyof TierLimits, string>)
      : DEFAULT_LIMITS,
  );
  const [isActive, setIsActive] = useState(tier?.isActive ?? true);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [formError, setFormError] = useState<string | null>(null);
  const returnTo = useRef<HTMLElement | null>(null);

  const values = (): Record<Field, string> => ({ name, displayName, price, fee, ...limits });

  /** Every field's error, by the same rules as the server's (fieldProblem). */
  function check(): FieldErrors {
    const v = values();
    const found: FieldErrors = {};
    for (const f of FIELDS) {
      const problem = fieldProblem(f, v[f]);
      if (problem) found[f] = t(problem);
    }
    return found;
  }

  /** An error clears as its field is corrected (a still-wrong value keeps it until the next submit). */
  function edit(field: Field, value: string, apply: (value: string) => void) {
    apply(value);
    setFormError(null);
    if (errors[field] && fieldProblem(field, value) === null) {
      setErrors((cur) => Object.fromEntries(Object.entries(cur).filter(([f]) => f !== field)) as FieldErrors);
    }
  }

  const save = useMutation({
    mutationFn: (body: TierBody) => (tier ? updateTier(tier.id, body) : createTier(body)),
    onSuccess: (saved) => {
      keepTier(qc, saved);
      toast({ title: t(tier ? 'admin.tiers.updated' : 'admin.tiers.created', { displayName: saved.displayName }) });
      onDone();
    },
    onError: (e) => {
      const field = e instanceof ApiError ? fieldOfParam(e.param) : null;
      const message = serverError(e) ?? t('admin.errors.saveTier');
      if (field) {
        setErrors({ [field]: message });
        focusField(field);
      } else setFormError(message);
    },
  });

  function focusField(field: Field) {
    document.getElementById(fieldId(field))?.focus();
  }

  function submit(e: FormEvent) {
    e.preventDefault();
    const found = check();
    setErrors(found);
    setFormError(null);
    const first = FIELDS.find((f) => found[f]);
    if (first) return focusField(first);
    save.mutate({
      name: name.trim(),
      displayName: displayName.trim(),
      monthlyPrice: parsePriceCents(price)! / 100,
      transactionFeeRate: bpsToFraction(feePercentToBps(fee)!),
      features,
      limits: Object.fromEntries(LIMIT_KEYS.map((k) => [k, parseLimit(limits[k])!])) as unknown as TierLimits,
      isActive,
    });
  }

  const describedBy = (field: Field, hint?: string) => [hint, errors[field] ? `${fieldId(field)}-error` : null].filter(Boolean).join(' ') || undefined;
  const fieldError = (field: Field) =>
    errors[field] ? (
      <p id={`${fieldId(field)}-error`} className="text-xs text-red-600" data-testid={`${fieldId(field)}-error`}>
        {errors[field]}
      </p>
    ) : null;

  return (
    <DialogContent
      className="max-w-2xl"
      closeLabel={t('admin.close')}
      data-testid="admin-tier-dialog"
      onOpenAutoFocus={() => {
        returnTo.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      }}
      onCloseAutoFocus={(e) => {
        // Opened by a button, not a Radix trigger: hand focus back to it.
        e.preventDefault();
        if (returnTo.current?.isConnected) returnTo.current.focus();
      }}
    >
      <DialogHeader>
        <DialogTitle>{tier ? t('admin.tiers.form.editTitle') : t('admin.tiers.form.createTitle')}</DialogTitle>
        <DialogDescription>{t('admin.tiers.form.description')}</DialogDescription>
      </DialogHeader>
      <form className="space-y-4" onSubmit={submit} noValidate data-testid="admin-tier-form">
        {isDefault && (
          <p id="tier-default-note" className="rounded-md bg-slate-50 p-3 text-sm text-slate-600" data-testid="tier-default-note">
            {t('admin.tiers.defaultHint')}
          </p>
        )}
        <div className="grid gap-4 sm:grid-cols-2">
          <div className="space-y-1.5">
            <Label htmlFor="tier-name">{t('admin.tiers.form.name')}</Label>
            <Input
              id="tier-name"
              dir="ltr"
              value={name}
              readOnly={isDefault}
              onChange={(e) => edit('name', e.target.value, setName)}
              placeholder="pro"
              aria-invalid={errors.name ? true : undefined}
              aria-describedby={describedBy('name', isDefault ? 'tier-default-note' : 'tier-name-hint')}
              data-testid="tier-name"
            />
            {!isDefault && (
              <p id="tier-name-hint" className="text-xs text-slate-500">
                {t('admin.tiers.form.nameHint')}
              </p>
            )}
            {fieldError('name')}
          </div>
          <div className="space-y-1.5">
            <Label htmlFor="tier-display-name">{t('admin.tiers.form.displayName')}</Label>
            <Input
              id="tier-display-name"
              value={displayName}
              maxLength={80}
              onChange={(e) => edit('displayName', e.target.value, setDisplayName)}
              aria-invalid={errors.displayName ? true : undefined}
              aria-describedby={describedBy('displayName')}
              data-testid="tier-display-name"
            />
            {fieldError('displayName')}
          </div>
          <div className="space-y-1.5">
            <Label htmlFor="tier-price">{t('admin.tiers.form.price')}</Label>
            <Input
              id="tier-price"
              type="number"
              inputMode="decimal"
              min={0}
              max={MAX_MONTHLY_PRICE_CENTS / 100}
              step={0.01}
              dir="ltr"
              value={price}
              onChange={(e) => edit('price', e.target.value, setPrice)}
              aria-invalid={errors.price ? true : undefined}
              aria-describedby={describedBy('price')}
              data-testid="tier-price"
            />
            {fieldError('price')}
          </div>
          <div className="space-y-1.5">
            <Label htmlFor="tier-fee">{t('admin.tiers.form.fee')}</Label>
            {/* Whole basis points, as the server stores the fee: a percent with at most 2 decimals. */}
            <Input
              id="tier-fee"
              type="number"
              inputMode="decimal"
              min={0}
              max={100}
              step={0.01}
              dir="ltr"
              value={fee}
              onChange={(e) => edit('fee', e.target.value, setFee)}
              aria-invalid={errors.fee ? true : undefined}
              aria-describedby={describedBy('fee', 'tier-fee-hint')}
              data-testid="tier-fee"
            />
            <p id="tier-fee-hint" className="text-xs text-slate-500">
              {t('admin.tiers.form.feeHint')}
            </p>
            {fieldError('fee')}
          </div>
        </div>
        <fieldset>
          <legend className="mb-2 text-sm font-medium text-slate-700">{t('admin.tiers.form.limits')}</legend>
          <div className="grid gap-4 sm:grid-cols-2">
            {LIMIT_KEYS.map((k) => (
              <div key={k} className="space-y-1.5">
                <Label htmlFor={fieldId(k)}>{t(limitLabel[k])}</Label>
                <Input
                  id={fieldId(k)}
                  type="number"
                  inputMode="numeric"
                  min={0}
                  max={MAX_LIMIT}
                  step={1}
                  dir="ltr"
                  value={limits[k]}
                  onChange={(e) => edit(k, e.target.value, (v) => setLimits((l) => ({ ...l, [k]: v })))}
                  aria-invalid={errors[k] ? true : undefined}
                  aria-describedby={describedBy(k, `${fieldId(k)}-hint`)}
                />
                <p id={`${fieldId(k)}-hint`} className="text-xs text-slate-500">
                  {isUnlimited(parseLimit(limits[k])) ? t('admin.tiers.unlimited') : t('admin.tiers.form.limitHint')}
                </p>
                {fieldError(k)}
              </div>
            ))}
          </div>
        </fieldset>
        <fieldset>
          <legend className="mb-2 text-sm font-medium text-slate-700">{t('admin.tiers.form.features')}</legend>
          <div className="grid gap-2 sm:grid-cols-2">
            {FEATURE_OPTIONS.map((f) => (
              <label key={f} className="flex items-center gap-2 text-sm">
                <input
                  type="checkbox"
                  className="h-4 w-4"
                  checked={features.includes(f)}
                  onChange={(e) => setFeatures((cur) => (e.target.checked ? [...cur, f] : cur.filter((x) => x !== f)))}
                />
                {featureLabel(t, f)}
              </label>
            ))}
          </div>
        </fieldset>
        <div className="flex items-center gap-3">
          <Switch
            id="tier-active"
            checked={isActive}
            onCheckedChange={setIsActive}
            disabled={isDefault && isActive}
            aria-describedby={isDefault ? 'tier-default-note' : undefined}
          />
          <Label htmlFor="tier-active">{t('admin.tiers.form.active')}</Label>
        </div>
        {formError && (
          <p role="alert" className="text-sm text-red-600" data-testid="tier-form-error">
            {formError}
          </p>
        )}
        <div className="flex justify-end gap-2">
          <Button variant="outline" onClick={onDone}>
            {t('admin.cancel')}
          </Button>
          <Button type="submit" disabled={save.isPending} data-testid="tier-save">
            {save.isPending ? t('admin.saving') : t('admin.save')}
          </Button>
        </div>
      </form>
    </DialogContent>
  );
}

const FIELD_IDS: Partial<Record<Field, string>> = { name: 'tier-name', displayName: 'tier-display-name', price: 'tier-price', fee: 'tier-fee' };
/** The input's id (errors and hints are `<id>-error`, `<id>-hint`). */
const fieldId = (field: Field): string => FIELD_IDS[field] ?? `tier-limit-${field}`;

export { serverError };
