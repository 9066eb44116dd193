import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { CreditCard, Pencil, Plus, Trash2 } from 'lucide-react';
import { useState } from 'react';
import { Badge } from '../../../components/ui/badge';
import { Button } from '../../../components/ui/button';
import { Switch } from '../../../components/ui/switch';
import { toast } from '../../../components/ui/use-toast';
import { useLanguage } from '../../../i18n';
import { adminTiersQuery, deleteTier, subscriptionAnalyticsQuery, TIERS_KEY, toggleTier, userSubscriptionsQuery } from '../api';
import { amountNumber, formatAmount, formatDate, fractionToPercent, isUnlimited, LIMIT_KEYS, personName, splitFeatures } from '../display';
import type { AdminTier } from '../types';
import { EmptyState, ErrorBlock, LoadingBlock, StatCard } from './states';
import { featureLabel, limitLabel, serverError, TierFormDialog } from './tier-form-dialog';

export function SubscriptionsTab() {
  return (
    <div className="space-y-10">
      <TiersSection />
      <UserSubscriptionsSection />
      <SubscriptionAnalyticsSection />
    </div>
  );
}

function TiersSection() {
  const { t } = useLanguage();
  const qc = useQueryClient();
  const q = useQuery(adminTiersQuery());
  const [editing, setEditing] = useState<AdminTier | null>(null);
  const [formOpen, setFormOpen] = useState(false);
  const toggle = useMutation({
    mutationFn: (id: string) => toggleTier(id),
    onSuccess: () => void qc.invalidateQueries({ queryKey: TIERS_KEY }),
    onError: () => toast({ title: t('admin.errors.toggleTier'), variant: 'destructive' }),
  });
  const remove = useMutation({
    mutationFn: (id: string) => deleteTier(id),
    onSuccess: () => void qc.invalidateQueries({ queryKey: TIERS_KEY }),
    onError: (e) => toast({ title: serverError(e) ?? t('admin.errors.deleteTier'), variant: 'destructive' }),
  });

  function confirmDelete(tier: AdminTier) {
    if (window.confirm(t('admin.tiers.deleteConfirm', { displayName: tier.displayName }))) remove.mutate(tier.id);
  }

  return (
    <section className="space-y-4" aria-labelledby="admin-tiers-title">
      <div className="flex items-center justify-between gap-3">
        <h2 id="admin-tiers-title" className="text-lg font-semibold text-slate-900">
          {t('admin.tiers.title')}
        </h2>
        <Button
          size="sm"
          onClick={() => {
            setEditing(null);
            setFormOpen(true);
          }}
          data-testid="admin-tier-create"
        >
          <Plus className="h-4 w-4" aria-hidden />
          {t('admin.tiers.create')}
        </Button>
      </div>
      {q.isLoading ? (
        <LoadingBlock />
      ) : q.error ? (
        <ErrorBlock message={t('admin.errors.tiers')} onRetry={() => void q.refetch()} />
      ) : (q.data ?? []).length === 0 ? (
        <EmptyState title={t('admin.tiers.empty')} body={t('admin.tiers.emptyBody')} icon={<CreditCard className="h-8 w-8" />} />
      ) : (
        <div className="grid gap-4 md:grid-cols-2 xl:grid-cols-3">
          {(q.data ?? []).map((tier) => {
            const { visible, more } = splitFeatures(tier.features ?? []);
            return (
              <article key={tier.id} className="flex flex-col rounded-xl border border-slate-200 bg-white p-5 shadow-sm" data-testid="admin-tier-card">
                <div className="flex items-start justify-between gap-2">
                  <div>
                    <h3 className="font-semibold text-slate-900">{tier.displayName}</h3>
                    <p className="font-mono text-xs text-slate-500" dir="ltr">
                      {tier.name}
                    </p>
                  </div>
                  <Badge tone={tier.isActive ? 'green' : 'neutral'}>{tier.isActive ? t('admin.tiers.active') : t('admin.tiers.inactive')}</Badge>
                </div>
                <p className="mt-3 text-2xl font-bold">
                  {formatAmount(tier.monthlyPrice)}
                  <span className="text-sm font-normal text-slate-500">{t('admin.tiers.perMonth')}</span>
                </p>
                <p className="text-sm text-slate-500">{t('admin.tiers.fee', { rate: fractionToPercent(tier.transactionFeeRate) })}</p>
                <dl className="mt-3 grid grid-cols-2 gap-x-3 gap-y-1 text-xs">
                  {LIMIT_KEYS.map((k) => (
                    <div key={k} className="contents">
                      <dt className="text-slate-500">{t(limitLabel[k])}</dt>
                      <dd className="text-end font-medium">{isUnlimited(tier.limits?.[k]) ? t('admin.tiers.unlimited') : tier.limits[k]}</dd>
                    </div>
                  ))}
                </dl>
                <ul className="mt-3 space-y-1 text-sm">
                  {visible.map((f) => (
                    <li key={f}>• {featureLabel(t, f)}</li>
                  ))}
                  {more > 0 && <li className="text-slate-500">{t('admin.tiers.more', { count: more })}</li>}
                </ul>
                <div className="mt-auto flex flex-wrap items-center gap-2 pt-4">
                  <label className="me-auto flex items-center gap-2 text-sm">
                    <Switch
                      checked={tier.isActive}
                      disabled={toggle.isPending}
                      onCheckedChange={() => toggle.mutate(tier.id)}
                      aria-label={t('admin.tiers.toggle', { displayName: tier.displayName })}
                    />
                    {t('admin.tiers.form.active')}
                  </label>
                  <Button
                    variant="outline"
                    size="sm"
                    onClick={() => {
                      setEditing(tier);
                      setFormOpen(true);
                    }}
                  >
                    <Pencil className="h-3.5 w-3.5" aria-hidden />
                    {t('admin.tiers.edit')}
                  </Button>
                  {!tier.isActive && (
                    <Button variant="destructive" size="sm" onClick={() => confirmDelete(tier)} disabled={remove.isPending}>
                      <Trash2 className="h-3.5 w-3.5" aria-hidden />
                      {t('admin.tiers.delete')}
                    </Button>
                  )}
                </div>
              </article>
            );
          })}
        </div>
      )}
      <TierFormDialog tier={editing} open={formOpen} onOpenChange={setFormOpen} />
    </section>
  );
}

function UserSubscriptionsSection() {
  const { t, lang } = useLanguage();
  const q = useQuery(userSubscriptionsQuery());
  return (
    <section className="space-y-4" aria-labelledby="admin-user-subs-title">
      <h2 id="admin-user-subs-title" className="text-lg font-semibold text-slate-900">
        {t('admin.subs.title')}
      </h2>
      {q.isLoading ? (
        <LoadingBlock />
      ) : q.error ? (
        <ErrorBlock message={t('admin.errors.subscriptions')} onRetry={() => void q.refetch()} />
      ) : (q.data ?? []).length === 0 ? (
        <EmptyState title={t('admin.subs.empty')} body={t('admin.subs.emptyBody')} />
      ) : (
        <div className="overflow-x-auto rounded-xl border border-slate-200 bg-white shadow-sm">
          <table className="w-full text-sm">
            <thead className="bg-slate-50 text-xs uppercase text-slate-500">
              <tr>
                <th className="px-4 py-3 text-start font-medium">{t('admin.subs.col.user')}</th>
                <th className="px-4 py-3 text-start font-medium">{t('admin.subs.col.tier')}</th>
                <th className="px-4 py-3 text-start font-medium">{t('admin.subs.col.status')}</th>
                <th className="px-4 py-3 text-start font-medium">{t('admin.subs.col.period')}</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {(q.data ?? []).map((s, i) => (
                <tr key={s.id ?? `${s.userId}-${i}`}>
                  <td className="px-4 py-3">
                    <div className="font-medium">{personName(s.user) || s.userId}</div>
                    {s.user && (
                      <div className="text-xs text-slate-500" dir="ltr">
                        {s.user.email}
                      </div>
                    )}
                  </td>
                  <td className="px-4 py-3">{s.tier?.displayName ?? s.tierId}</td>
                  <td className="px-4 py-3">
                    <Badge tone={s.status === 'active' ? 'green' : 'neutral'}>{s.status}</Badge>
                  </td>
                  <td className="px-4 py-3 text-slate-500">
                    {formatDate(s.currentPeriodStart, lang)} – {formatDate(s.currentPeriodEnd, lang)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function SubscriptionAnalyticsSection() {
  const { t } = useLanguage();
  const q = useQuery(subscriptionAnalyticsQuery());
  const rows = q.data?.subscriptionsByTier ?? [];
  return (
    <section className="space-y-4" aria-labelledby="admin-sub-analytics-title">
      <h2 id="admin-sub-analytics-title" className="text-lg font-semibold text-slate-900">
        {t('admin.subs.analytics')}
      </h2>
      {q.isLoading ? (
        <LoadingBlock />
      ) : q.error || !q.data ? (
        <ErrorBlock message={t('admin.errors.analytics')} onRetry={() => void q.refetch()} />
      ) : (
        <div className="grid gap-4 md:grid-cols-3">
          <StatCard label={t('admin.subs.totalRevenue')} value={formatAmount(q.data.totalSubscriptionRevenue)} testId="admin-sub-revenue" />
          <div className="rounded-xl border border-slate-200 bg-white p-5 shadow-sm md:col-span-2">
            <table className="w-full text-sm">
              <thead className="text-xs uppercase text-slate-500">
                <tr>
                  <th className="pb-2 text-start font-medium">{t('admin.subs.col.tier')}</th>
                  <th className="pb-2 text-end font-medium">{t('admin.subs.col.count')}</th>
                  <th className="pb-2 text-end font-medium">{t('admin.subs.col.monthly')}</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((r) => (
                  <tr key={r.tierName}>
                    <td className="py-1">{r.tierName}</td>
                    <td className="py-1 text-end tabular-nums">{r.count}</td>
                    <td className="py-1 text-end tabular-nums">{formatAmount(amountNumber(r.monthlyRevenue))}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </div>
      )}
    </section>
  );
}
