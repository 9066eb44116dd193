import { useInfiniteQuery } from '@tanstack/react-query';
import { Search, Store } from 'lucide-react';
import { useDeferredValue, useState } from 'react';
import { Badge } from '../../../components/ui/badge';
import { Input } from '../../../components/ui/input';
import { useLanguage } from '../../../i18n';
import { adminMerchantsQuery, type MerchantEnvironment } from '../api';
import { formatAmount, formatDate, personName } from '../display';
import { CopyValue, EmptyState, ErrorBlock, LoadingBlock, LoadMore, selectClass } from './states';

type StatusFilter = 'all' | 'active' | 'inactive';
type EnvFilter = 'all' | MerchantEnvironment;

export function MerchantsTab() {
  const { t, lang } = useLanguage();
  const [search, setSearch] = useState('');
  const [status, setStatus] = useState<StatusFilter>('all');
  const [env, setEnv] = useState<EnvFilter>('all');
  // Search and environment are the server's (they hold on every page); a new value starts from the first page.
  const q = useInfiniteQuery(adminMerchantsQuery(useDeferredValue(search), env));
  const all = q.data?.pages.flatMap((p) => p.items) ?? [];
  // The server has no active/inactive filter: it applies to the pages loaded so far.
  const shown = all.filter((m) => status === 'all' || (status === 'active') === m.isActive);
  const filtered = search.trim() !== '' || env !== 'all';

  return (
    <section className="space-y-4" aria-labelledby="admin-merchants-title">
      <h2 id="admin-merchants-title" className="text-lg font-semibold text-slate-900">
        {t('admin.merchants.title')}
      </h2>
      <div className="flex flex-col gap-3 sm:flex-row">
        <div className="relative flex-1">
          <Search className="pointer-events-none absolute start-3 top-3 h-4 w-4 text-slate-400" aria-hidden />
          <Input
            type="search"
            className="ps-9"
            placeholder={t('admin.merchants.search')}
            aria-label={t('admin.merchants.search')}
            value={search}
            onChange={(e) => setSearch(e.target.value)}
            data-testid="admin-merchants-search"
          />
        </div>
        <select className={selectClass} aria-label={t('admin.merchants.statusFilter')} value={status} onChange={(e) => setStatus(e.target.value as StatusFilter)}>
          <option value="all">{t('admin.merchants.status.all')}</option>
          <option value="active">{t('admin.merchants.status.active')}</option>
          <option value="inactive">{t('admin.merchants.status.inactive')}</option>
        </select>
        <select className={selectClass} aria-label={t('admin.merchants.envFilter')} value={env} onChange={(e) => setEnv(e.target.value as EnvFilter)}>
          <option value="all">{t('admin.merchants.env.all')}</option>
          <option value="sandbox">{t('admin.merchants.env.sandbox')}</option>
          <option value="production">{t('admin.merchants.env.production')}</option>
        </select>
      </div>
      {q.isLoading ? (
        <LoadingBlock />
      ) : q.error ? (
        <ErrorBlock message={t('admin.errors.merchants')} onRetry={() => void q.refetch()} />
      ) : all.length === 0 && !filtered ? (
        <EmptyState title={t('admin.merchants.empty')} icon={<Store className="h-8 w-8" />} testId="admin-merchants-empty" />
      ) : shown.length === 0 ? (
        <EmptyState title={t('admin.merchants.noMatch')} icon={<Store className="h-8 w-8" />} testId="admin-merchants-empty" />
      ) : (
        <div className="overflow-x-auto rounded-xl border border-slate-200 bg-white shadow-sm">
          <table className="w-full text-sm">
            <thead className="bg-slate-50 text-xs uppercase text-slate-500">
              <tr>
                <th className="px-4 py-3 text-start font-medium">{t('admin.merchants.col.business')}</th>
                <th className="px-4 py-3 text-start font-medium">{t('admin.merchants.col.owner')}</th>
                <th className="px-4 py-3 text-start font-medium">{t('admin.merchants.col.env')}</th>
                <th className="px-4 py-3 text-start font-medium">{t('admin.merchants.col.status')}</th>
                <th className="px-4 py-3 text-end font-medium">{t('admin.merchants.col.volume')}</th>
                <th className="px-4 py-3 text-start font-medium">{t('admin.merchants.col.created')}</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {shown.map((m) => {
                const owner = m.user;
                const key = m.apiKey;
                return (
                  <tr key={m.id} data-testid="admin-merchant-row">
                    <td className="px-4 py-3">
                      <div className="font-medium text-slate-900">{m.businessName}</div>
                      <div className="text-xs text-slate-500" dir="ltr">
                        {m.businessEmail}
                      </div>
                      {key && (
                        <div className="mt-1 flex items-center gap-1 font-mono text-xs text-slate-500" dir="ltr">
                          <span className="max-w-[14rem] truncate">{key}</span>
                          <CopyValue text={key} label={t('admin.merchants.apiKey')} />
                        </div>
                      )}
                    </td>
                    <td className="px-4 py-3">
                      {owner ? (
                        <>
                          <div>{personName(owner)}</div>
                          <div className="text-xs text-slate-500" dir="ltr">
                            {owner.email}
                          </div>
                        </>
                      ) : (
                        '—'
                      )}
                    </td>
                    <td className="px-4 py-3">
                      <Badge tone={m.environment === 'production' ? 'green' : 'yellow'}>
                        {m.environment === 'production' ? t('admin.merchants.env.production') : t('admin.merchants.env.sandbox')}
                      </Badge>
                    </td>
                    <td className="px-4 py-3">
                      <Badge tone={m.isActive ? 'green' : 'neutral'}>
                        {m.isActive ? t('admin.merchants.status.active') : t('admin.merchants.status.inactive')}
                      </Badge>
                    </td>
                    <td className="px-4 py-3 text-end tabular-nums">{formatAmount(m.totalVolume)}</td>
                    <td className="px-4 py-3 text-slate-500">{formatDate(m.createdAt, lang)}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      <LoadMore
        hasMore={q.hasNextPage && !q.error}
        loading={q.isFetchingNextPage}
        onLoad={() => void q.fetchNextPage()}
        testId="admin-merchants-load-more"
      />
    </section>
  );
}
