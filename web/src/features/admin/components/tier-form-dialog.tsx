import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Button } from '../../../components/ui/button';
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from '../../../components/ui/dialog';
import { Input } from '../../../components/ui/input';
import { Label } from '../../../components/ui/label';
import { Switch } from '../../../components/ui/switch';
import { useLanguage, type MessageKey } from '../../../i18n';
import { ApiError } from '../../../lib/api';
import { createTier, TIERS_KEY, updateTier } from '../api';
import { amountNumber, fractionToPercent, isUnlimited, LIMIT_KEYS, parseLimit, percentToFraction } from '../display';
import type { AdminTier, TierLimits } from '../types';

export const FEATURE_OPTIONS = [
  'basic_funding_sources',
  'unlimited_funding_sources',
  'priority_support',
  'advanced_analytics',
  'api_access',
  'custom_branding',
  'white_label',
  'dedicated_account_manager',
] as const;

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
  const [name, setName] = useState(tier?.name ?? '');
  const [displayName, setDisplayName] = useState(tier?.displayName ?? '');
  const [price, setPrice] = useState(tier ? String(amountNumber(tier.monthlyPrice)) : '0');
  const [fee, setFee] = useState(tier ? fractionToPercent(tier.transactionFeeRate) : '2.9');
  const [features, setFeatures] = useState<string[]>(tier?.features ?? []);
  const [limits, setLimits] = useState<Record<keyof TierLimits, string>>(() =>
    tier
      ? (Object.fromEntries(LIMIT_KEYS.map((k) => [k, isUnlimited(tier.limits[k]) ? '0' : String(tier.limits[k])])) as Record<keyof TierLimits, string>)
      : DEFAULT_LIMITS,
  );
  const [isActive, setIsActive] = useState(tier?.isActive ?? true);
  const [error, setError] = useState<string | null>(null);

  const save = useMutation({
    mutationFn: (body: Parameters<typeof createTier>[0]) => (tier ? updateTier(tier.id, body) : createTier(body)),
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: TIERS_KEY });
      onDone();
    },
    onError: (e) => setError(serverError(e) ?? t('admin.errors.saveTier')),
  });

  function submit(e: FormEvent) {
    e.preventDefault();
    const priceOk = /^\d+(\.\d{1,2})?$/.test(price.trim());
    const fraction = percentToFraction(fee);
    const parsed = LIMIT_KEYS.map((k) => [k, parseLimit(limits[k])] as const);
    if (!name.trim() || !displayName.trim()) return setError(t('admin.tiers.form.nameRequired'));
    if (!priceOk) return setError(t('admin.tiers.form.priceInvalid'));
    if (fraction === null) return setError(t('admin.tiers.form.feeInvalid'));
    if (parsed.some(([, v]) => v === null)) return setError(t('admin.tiers.form.limitInvalid'));
    setError(null);
    save.mutate({
      name: name.trim(),
      displayName: displayName.trim(),
      monthlyPrice: Math.round(Number(price) * 100) / 100,
      transactionFeeRate: Number(fraction),
      features,
      limits: Object.fromEntries(parsed) as unknown as TierLimits,
      isActive,
    });
  }

  return (
    <DialogContent className="max-w-2xl" closeLabel={t('admin.close')}>
      <DialogHeader>
        <DialogTitle>{tier ? t('admin.tiers.form.editTitle') : t('admin.tiers.form.createTitle')}</DialogTitle>
        <DialogDescription>{t('admin.tiers.form.description')}</DialogDescription>
      </DialogHeader>
      <form className="space-y-4" onSubmit={submit} noValidate data-testid="admin-tier-form">
        <div className="grid gap-4 sm:grid-cols-2">
          <div className="space-y-1.5">
            <Label htmlFor="tier-name">{t('admin.tiers.form.name')}</Label>
            <Input id="tier-name" dir="ltr" value={name} onChange={(e) => setName(e.target.value)} placeholder="pro" data-testid="tier-name" />
          </div>
          <div className="space-y-1.5">
            <Label htmlFor="tier-display-name">{t('admin.tiers.form.displayName')}</Label>
            <Input id="tier-display-name" value={displayName} onChange={(e) => setDisplayName(e.target.value)} data-testid="tier-display-name" />
          </div>
          <div className="space-y-1.5">
            <Label htmlFor="tier-price">{t('admin.tiers.form.price')}</Label>
            <Input id="tier-price" type="number" min={0} step={0.01} dir="ltr" value={price} onChange={(e) => setPrice(e.target.value)} data-testid="tier-price" />
          </div>
          <div className="space-y-1.5">
            <Label htmlFor="tier-fee">{t('admin.tiers.form.fee')}</Label>
            <Input id="tier-fee" type="number" min={0} max={100} step={0.001} dir="ltr" value={fee} onChange={(e) => setFee(e.target.value)} data-testid="tier-fee" />
          </div>
        </div>
        <fieldset>
          <legend className="mb-2 text-sm font-medium text-slate-700">{t('admin.tiers.form.limits')}</legend>
          <div className="grid gap-4 sm:grid-cols-2">
            {LIMIT_KEYS.map((k) => (
              <div key={k} className="space-y-1.5">
                <Label htmlFor={`tier-limit-${k}`}>{t(limitLabel[k])}</Label>
                <Input
                  id={`tier-limit-${k}`}
                  type="number"
                  min={0}
                  step={1}
                  dir="ltr"
                  value={limits[k]}
                  onChange={(e) => setLimits((l) => ({ ...l, [k]: e.target.value }))}
                  aria-describedby={`tier-limit-${k}-hint`}
                />
                <p id={`tier-limit-${k}-hint`} className="text-xs text-slate-500">
                  {isUnlimited(parseLimit(limits[k])) ? t('admin.tiers.unlimited') : t('admin.tiers.form.limitHint')}
                </p>
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
          <Switch id="tier-active" checked={isActive} onCheckedChange={setIsActive} />
          <Label htmlFor="tier-active">{t('admin.tiers.form.active')}</Label>
        </div>
        {error && (
          <p role="alert" className="text-sm text-red-600">
            {error}
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

export { serverError };
