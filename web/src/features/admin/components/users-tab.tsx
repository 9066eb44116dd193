import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Search } from 'lucide-react';
import { useDeferredValue, useState } from 'react';
import { Badge } from '../../../components/ui/badge';
import { Input } from '../../../components/ui/input';
import { toast } from '../../../components/ui/use-toast';
import { useLanguage, type MessageKey } from '../../../i18n';
import { adminTiersQuery, adminUsersQuery, changeUserSubscription, updateUserRole, USER_SUBSCRIPTIONS_KEY, USERS_KEY } from '../api';
import { formatDate, personName } from '../display';
import type { AdminUser, UserRole } from '../types';
import { EmptyState, ErrorBlock, LoadingBlock, LoadMore, selectClass } from './states';

const ROLES: UserRole[] = ['user', 'merchant', 'admin'];
export const roleLabel: Record<UserRole, MessageKey> = {
  user: 'admin.users.role.user',
  merchant: 'admin.users.role.merchant',
  admin: 'admin.users.role.admin',
};

export function UsersTab() {
  const { t, lang } = useLanguage();
  const qc = useQueryClient();
  const [search, setSearch] = useState('');
  const [role, setRole] = useState<UserRole | 'all'>('all');
  const deferred = useDeferredValue(search);
  const users = useInfiniteQuery(adminUsersQuery(deferred, role));
  const rows = users.data?.pages.flatMap((p) => p.items) ?? [];
  const tiers = useQuery(adminTiersQuery());
  const activeTiers = (tiers.data ?? []).filter((x) => x.isActive);

  const roleMutation = useMutation({
    mutationFn: ({ id, role: next }: { id: string; role: UserRole }) => updateUserRole(id, next),
    onSuccess: () => {
      toast({ title: t('admin.users.updated') });
      void qc.invalidateQueries({ queryKey: USERS_KEY });
    },
    onError: () => toast({ title: t('admin.users.updateFailed'), variant: 'destructive' }),
  });
  const tierMutation = useMutation({
    mutationFn: ({ id, tierId }: { id: string; tierId: string }) => changeUserSubscription(id, tierId),
    onSuccess: () => {
      toast({ title: t('admin.users.subscriptionUpdated') });
      void qc.invalidateQueries({ queryKey: USERS_KEY });
      void qc.invalidateQueries({ queryKey: USER_SUBSCRIPTIONS_KEY });
    },
    onError: () => toast({ title: t('admin.users.subscriptionFailed'), variant: 'destructive' }),
  });

  const tierOf = (u: AdminUser) => u.tier?.id ?? '';

  return (
    <section className="space-y-4" aria-labelledby="admin-users-title">
      <h2 id="admin-users-title" className="text-lg font-semibold text-slate-900">
        {t('admin.users.title')}
      </h2>
      <div className="flex flex-col gap-3 sm:flex-row">
        <div className="relative flex-1">
          <Search className="pointer-events-none absolute start-3 top-3 h-4 w-4 text-slate-400" aria-hidden />
          <Input
            type="search"
            className="ps-9"
            placeholder={t('admin.users.search')}
            aria-label={t('admin.users.search')}
            value={search}
            onChange={(e) => setSearch(e.target.value)}
            data-testid="admin-users-search"
          />
        </div>
        <select
          className={selectClass}
          aria-label={t('admin.users.roleFilter')}
          value={role}
          onChange={(e) => setRole(e.target.value as UserRole | 'all')}
          data-testid="admin-users-role-filter"
        >
          <option value="all">{t('admin.users.role.all')}</option>
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {t(roleLabel[r])}
            </option>
          ))}
        </select>
      </div>
      {users.isLoading ? (
        <LoadingBlock />
      ) : users.error ? (
        <ErrorBlock message={t('admin.errors.users')} onRetry={() => void users.refetch()} />
      ) : rows.length === 0 ? (
        <EmptyState title={t('admin.users.empty')} />
      ) : (
        <div className="overflow-x-auto rounded-xl border border-slate-200 bg-white shadow-sm">
          <table className="w-full text-sm">
            <thead className="bg-slate-50 text-start text-xs uppercase text-slate-500">
              <tr>
                <th className="px-4 py-3 text-start font-medium">{t('admin.users.col.user')}</th>
                <th className="px-4 py-3 text-start font-medium">{t('admin.users.col.role')}</th>
                <th className="px-4 py-3 text-start font-medium">{t('admin.users.col.tier')}</th>
                <th className="px-4 py-3 text-start font-medium">{t('admin.users.col.country')}</th>
                <th className="px-4 py-3 text-start font-medium">{t('admin.users.col.joined')}</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {rows.map((u) => (
                <tr key={u.id} data-testid="admin-user-row">
                  <td className="px-4 py-3">
                    <div className="font-medium text-slate-900">{personName(u)}</div>
                    <div className="text-xs text-slate-500" dir="ltr">
                      {u.email}
                    </div>
                  </td>
                  <td className="px-4 py-3">
                    <select
                      className={`${selectClass} h-8`}
                      aria-label={t('admin.users.editRole', { email: u.email })}
                      value={u.role}
                      disabled={roleMutation.isPending}
                      onChange={(e) => roleMutation.mutate({ id: u.id, role: e.target.value as UserRole })}
                      data-testid="admin-user-role"
                    >
                      {ROLES.map((r) => (
                        <option key={r} value={r}>
                          {t(roleLabel[r])}
                        </option>
                      ))}
                    </select>
                  </td>
                  <td className="px-4 py-3">
                    <select
                      className={`${selectClass} h-8`}
                      aria-label={t('admin.users.changeTier', { email: u.email })}
                      value={tierOf(u)}
                      disabled={tierMutation.isPending || activeTiers.length === 0}
                      onChange={(e) => e.target.value && tierMutation.mutate({ id: u.id, tierId: e.target.value })}
                      data-testid="admin-user-tier"
                    >
                      {!activeTiers.some((x) => x.id === tierOf(u)) && (
                        <option value={tierOf(u)}>{u.tier?.displayName ?? t('admin.users.noTier')}</option>
                      )}
                      {activeTiers.map((x) => (
                        <option key={x.id} value={x.id}>
                          {x.displayName}
                        </option>
                      ))}
                    </select>
                  </td>
                  <td className="px-4 py-3">{u.country ? <Badge>{u.country}</Badge> : '—'}</td>
                  <td className="px-4 py-3 text-slate-500">{formatDate(u.createdAt, lang)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <LoadMore
        hasMore={users.hasNextPage && !users.error}
        loading={users.isFetchingNextPage}
        onLoad={() => void users.fetchNextPage()}
        testId="admin-users-load-more"
      />
    </section>
  );
}
