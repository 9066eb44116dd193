import { useInfiniteQuery } from '@tanstack/react-query';
import { Store } from 'lucide-react';
import { useDeferredValue, useState } from 'react';
import { Badge } from '../../../components/ui/badge';
import { ListState, listStatus } from '../../../components/ui/list-state';
import { SearchField } from '../../../components/ui/search-field';
import { useLanguage } from '../../../i18n';
import { adminMerchantsQuery, effectiveSearch, searchTooShort, type MerchantEnvironment } from '../api';
import { formatAmount, formatDate, personName } from '../display';
import { AdminTable, CopyValue, EmptyState, ErrorBlock, LoadingBlock, LoadMore, selectClass, Th } from './states';

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
  const filtered = effectiveSearch(search) !== '' || env !== 'all';

  return (
    <section className="space-y-4" aria-labelledby="admin-merchants-title">
      <h2 id="admin-merchants-title" className="text-lg font-semibold text-slate-900">
        {t('admin.merchants.title')}
      </h2>
      <div className="flex flex-col gap-3 sm:flex-row">
        <SearchField
          label={t('admin.merchants.search')}
          value={search}
          onChange={setSearch}
          testId="admin-merchants-search"
          hint={searchTooShort(search) ? t('admin.search.tooShort') : undefined}
        />
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
      <ListState
        status={listStatus({ isLoading: q.isLoading, error: q.error, total: all.length, shown: shown.length, filtered })}
        loading={<LoadingBlock />}
        error={<ErrorBlock message={t('admin.errors.merchants')} onRetry={() => void q.refetch()} />}
        empty={<EmptyState title={t('admin.merchants.empty')} icon={<Store className="h-8 w-8" />} testId="admin-merchants-empty" />}
        noMatch={<EmptyState title={t('admin.merchants.noMatch')} icon={<Store className="h-8 w-8" />} testId="admin-merchants-empty" />}
      >
        <AdminTable
          head={
            <>
              <Th>{t('admin.merchants.col.business')}</Th>
              <Th>{t('admin.merchants.col.owner')}</Th>
              <Th>{t('admin.merchants.col.env')}</Th>
              <Th>{t('admin.merchants.col.status')}</Th>
              <Th align="end">{t('admin.merchants.col.volume')}</Th>
              <Th>{t('admin.merchants.col.created')}</Th>
            </>
          }
        >
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
        </AdminTable>
      </ListState>
      <LoadMore
        hasMore={q.hasNextPage && !q.error}
        loading={q.isFetchingNextPage}
        onLoad={() => void q.fetchNextPage()}
        testId="admin-merchants-load-more"
      />
    </section>
  );
}
