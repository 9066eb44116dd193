import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useDeferredValue, useState } from 'react';
import { Badge } from '../../../components/ui/badge';
import { ListState, listStatus } from '../../../components/ui/list-state';
import { SearchField } from '../../../components/ui/search-field';
import { toast } from '../../../components/ui/use-toast';
import { messageOf } from '../../../lib/api';
import { useLanguage, type MessageKey } from '../../../i18n';
import {
  adminTiersQuery,
  adminUsersQuery,
  changeUserSubscription,
  updateUserRole,
  USER_SUBSCRIPTIONS_KEY,
  USERS_KEY,
  type AdminUser,
  type AssignableRole,
  type UserRole,
  searchTooShort,
} from '../api';
import { formatDate, personName } from '../display';
import { ConfirmDialog } from './confirm-dialog';
import { Ltr, richText } from './rich-text';
import { AdminTable, EmptyState, ErrorBlock, LoadingBlock, LoadMore, selectClass, Th } from './states';

/** The role filter lists every role (spec §2); a user can only be given user or merchant (admins are separate accounts). */
const ROLES: UserRole[] = ['user', 'merchant', 'admin'];
const ASSIGNABLE_ROLES: AssignableRole[] = ['user', 'merchant'];
const isAssignable = (role: UserRole): role is AssignableRole => (ASSIGNABLE_ROLES as UserRole[]).includes(role);

/** A change waiting for the admin's confirmation. */
type PendingChange =
  | { kind: 'role'; user: AdminUser; to: AssignableRole }
  | { kind: 'tier'; user: AdminUser; to: { id: string; displayName: string } };

/** Issue 26: a user paying for a running period moves at its end, or now with the unused part refunded. */
type Timing = 'period_end' | 'now_with_refund';
const paidUntil = (u: AdminUser) => (u.planPeriodEnd && new Date(u.planPeriodEnd).getTime() > Date.now() ? u.planPeriodEnd : null);
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
  const priceOf = (tierId: string) => Number((tiers.data ?? []).find((x) => x.id === tierId)?.monthlyPrice ?? 0);
  /** Moving this paying user to `tierId` costs more than their plan now. */
  const dearer = (u: AdminUser, tierId: string) => paidUntil(u) !== null && priceOf(tierId) > priceOf(tierOf(u));

  const [change, setChange] = useState<PendingChange | null>(null);
  const [timing, setTiming] = useState<Timing>('period_end');

  const roleMutation = useMutation({
    mutationFn: ({ id, role: next }: { id: string; role: AssignableRole }) => updateUserRole(id, next),
    onSuccess: () => {
      toast({ title: t('admin.users.updated') });
      void qc.invalidateQueries({ queryKey: USERS_KEY });
    },
    onError: (e) => toast({ title: t('admin.users.updateFailed'), description: messageOf(e), variant: 'destructive' }),
    onSettled: () => setChange(null),
  });
  const tierMutation = useMutation({
    mutationFn: ({ id, tierId, when }: { id: string; tierId: string; when?: Timing }) => changeUserSubscription(id, tierId, when),
    onSuccess: (sub) => {
      const r = sub.refund;
      const refund = r && { amount: `$${r.amount}` };
      toast({
        title: t('admin.users.subscriptionUpdated'),
        ...(r && refund
          ? {
              description:
                r.status === 'succeeded'
                  ? t('admin.users.refunded', refund)
                  : r.status === 'pending'
                    ? t('admin.users.refundPending', refund)
                    : t('admin.users.refundFailed', refund),
            }
          : {}),
      });
      void qc.invalidateQueries({ queryKey: USERS_KEY });
      void qc.invalidateQueries({ queryKey: USER_SUBSCRIPTIONS_KEY });
    },
    onError: (e) => toast({ title: t('admin.users.subscriptionFailed'), description: messageOf(e), variant: 'destructive' }),
    onSettled: () => setChange(null),
  });

  const tierOf = (u: AdminUser) => u.tier?.id ?? '';
  const tierName = (u: AdminUser) => u.tier?.displayName ?? t('admin.users.noTier');

  function confirmChange() {
    if (!change) return;
    if (change.kind === 'role') roleMutation.mutate({ id: change.user.id, role: change.to });
    else tierMutation.mutate({ id: change.user.id, tierId: change.to.id, ...(paidUntil(change.user) ? { when: timing } : {}) });
  }

  return (
    <section className="space-y-4" aria-labelledby="admin-users-title">
      <div>
        <h2 id="admin-users-title" className="text-lg font-semibold text-slate-900">
          {t('admin.users.title')}
        </h2>
        <p id="admin-users-role-note" className="mt-1 text-sm text-slate-500" data-testid="admin-users-role-note">
          {richText(t('admin.users.adminNote'), {
            command: (
              <code dir="ltr" className="rounded bg-slate-100 px-1 py-0.5 text-slate-700">
                bun run admin:create --username &lt;name&gt;
              </code>
            ),
          })}
        </p>
      </div>
      <div className="flex flex-col gap-3 sm:flex-row">
        <SearchField
          label={t('admin.users.search')}
          value={search}
          onChange={setSearch}
          testId="admin-users-search"
          hint={searchTooShort(search) ? t('admin.search.tooShort') : undefined}
        />
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
      <ListState
        status={listStatus({ isLoading: users.isLoading, error: users.error, total: rows.length })}
        loading={<LoadingBlock />}
        error={<ErrorBlock message={t('admin.errors.users')} onRetry={() => void users.refetch()} />}
        empty={<EmptyState title={t('admin.users.empty')} />}
      >
        <AdminTable
          head={
            <>
              <Th>{t('admin.users.col.user')}</Th>
              <Th>{t('admin.users.col.role')}</Th>
              <Th>{t('admin.users.col.tier')}</Th>
              <Th>{t('admin.users.col.country')}</Th>
              <Th>{t('admin.users.col.joined')}</Th>
            </>
          }
        >
          {rows.map((u) => (
            <tr key={u.id} data-testid="admin-user-row">
              <td className="px-4 py-3">
                <div className="font-medium text-slate-900">{personName(u)}</div>
                <div className="text-xs text-slate-500" dir="ltr">
                  {u.email}
                </div>
              </td>
              <td className="px-4 py-3">
                {/* Controlled by the saved role: a choice shows only once it is confirmed and saved. */}
                <select
                  className={`${selectClass} h-8`}
                  aria-label={t('admin.users.editRole', { email: u.email })}
                  aria-describedby="admin-users-role-note"
                  value={u.role}
                  disabled={roleMutation.isPending}
                  onChange={(e) => {
                    const to = e.target.value as UserRole;
                    if (to !== u.role && isAssignable(to)) setChange({ kind: 'role', user: u, to });
                  }}
                  data-testid="admin-user-role"
                >
                  {ASSIGNABLE_ROLES.map((r) => (
                    <option key={r} value={r}>
                      {t(roleLabel[r])}
                    </option>
                  ))}
                  {/* An older row that says admin shows it, but nobody can be given it. */}
                  {u.role === 'admin' && (
                    <option value="admin" disabled>
                      {t('admin.users.role.admin')}
                    </option>
                  )}
                </select>
              </td>
              <td className="px-4 py-3">
                <select
                  className={`${selectClass} h-8`}
                  aria-label={t('admin.users.changeTier', { email: u.email })}
                  value={tierOf(u)}
                  disabled={tierMutation.isPending || activeTiers.length === 0}
                  onChange={(e) => {
                    const to = activeTiers.find((x) => x.id === e.target.value);
                    if (to && to.id !== tierOf(u)) {
                      // A dearer plan cannot wait for the period's end (the renewal would charge the user for a plan
                      // they never chose; the API refuses it): it is now, with the refund.
                      setTiming(dearer(u, to.id) ? 'now_with_refund' : 'period_end');
                      setChange({ kind: 'tier', user: u, to: { id: to.id, displayName: to.displayName } });
                    }
                  }}
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
        </AdminTable>
      </ListState>
      <LoadMore
        hasMore={users.hasNextPage && !users.error}
        loading={users.isFetchingNextPage}
        onLoad={() => void users.fetchNextPage()}
        testId="admin-users-load-more"
      />
      <ConfirmDialog
        open={change !== null}
        testId="admin-user-confirm"
        pending={roleMutation.isPending || tierMutation.isPending}
        title={change?.kind === 'tier' ? t('admin.users.confirmTier.title') : t('admin.users.confirmRole.title')}
        description={
          change?.kind === 'tier'
            ? richText(t(paidUntil(change.user) ? 'admin.users.confirmTier.paidBody' : 'admin.users.confirmTier.body'), {
                date: formatDate(paidUntil(change.user) ?? '', lang),
                email: <Ltr>{change.user.email}</Ltr>,
                from: <bdi>{tierName(change.user)}</bdi>,
                to: <bdi>{change.to.displayName}</bdi>,
              })
            : change
              ? richText(t('admin.users.confirmRole.body'), {
                  email: <Ltr>{change.user.email}</Ltr>,
                  from: t(roleLabel[change.user.role]),
                  to: t(roleLabel[change.to]),
                })
              : ''
        }
        confirmLabel={change?.kind === 'tier' ? t('admin.users.confirmTier.confirm') : t('admin.users.confirmRole.confirm')}
        onConfirm={confirmChange}
        onCancel={() => setChange(null)}
      >
        {change?.kind === 'tier' && paidUntil(change.user) && (
          <fieldset className="space-y-2 text-sm" data-testid="admin-user-timing">
            <legend className="mb-1 font-medium text-slate-900">{t('admin.users.confirmTier.when')}</legend>
            {(['period_end', 'now_with_refund'] as const).map((w) => (
              <label key={w} className="flex items-start gap-2 rounded-lg border border-slate-200 p-3 has-[:checked]:border-brand-600 has-[:checked]:bg-brand-50">
                <input
                  type="radio"
                  name="admin-plan-timing"
                  value={w}
                  checked={timing === w}
                  disabled={w === 'period_end' && dearer(change.user, change.to.id)}
                  onChange={() => setTiming(w)}
                  className="mt-0.5 h-4 w-4 shrink-0 accent-brand-600"
                  data-testid={`admin-user-timing-${w}`}
                />
                <span>
                  {w === 'period_end'
                    ? dearer(change.user, change.to.id)
                      ? t('admin.users.confirmTier.periodEndDearer', { to: change.to.displayName })
                      : t('admin.users.confirmTier.periodEnd', { date: formatDate(paidUntil(change.user) ?? '', lang), to: change.to.displayName })
                    : t('admin.users.confirmTier.nowRefund', { from: tierName(change.user) })}
                </span>
              </label>
            ))}
          </fieldset>
        )}
      </ConfirmDialog>
    </section>
  );
}
