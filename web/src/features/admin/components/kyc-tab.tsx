import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Eye, Fingerprint } from 'lucide-react';
import { useState, type FormEvent } from 'react';
import { Badge } from '../../../components/ui/badge';
import { Button } from '../../../components/ui/button';
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from '../../../components/ui/dialog';
import { Input } from '../../../components/ui/input';
import { Label } from '../../../components/ui/label';
import { ListState, listStatus } from '../../../components/ui/list-state';
import { toast } from '../../../components/ui/use-toast';
import { useLanguage, type MessageKey } from '../../../i18n';
import { KYC_KEY, kycOverviewQuery, kycVerificationsQuery, updateVerification, type KycStatus, type KycVerification } from '../api';
import { formatDate, parseRiskScore, personName, riskBand, type RiskBand } from '../display';
import { DocumentViewer } from './document-viewer';
import { AdminTable, EmptyState, ErrorBlock, LoadingBlock, LoadMore, selectClass, StatCard, Th } from './states';

const STATUSES: KycStatus[] = ['pending', 'processing', 'verified', 'failed', 'requires_input'];
const statusLabel: Record<KycStatus, MessageKey> = {
  pending: 'admin.kyc.status.pending',
  processing: 'admin.kyc.status.processing',
  verified: 'admin.kyc.status.verified',
  failed: 'admin.kyc.status.failed',
  requires_input: 'admin.kyc.status.requires_input',
};
const statusTone = { pending: 'yellow', processing: 'blue', verified: 'green', failed: 'red', requires_input: 'neutral' } as const;
const riskLabel: Record<RiskBand, MessageKey> = { low: 'admin.kyc.risk.low', medium: 'admin.kyc.risk.medium', high: 'admin.kyc.risk.high' };
const riskTone = { low: 'green', medium: 'yellow', high: 'red' } as const;

/** Enum values as words ('identity_document' -> 'identity document'), as the consumer's status view shows them. */
const humanize = (v: string) => v.replace(/_/g, ' ');

function applicant(v: KycVerification): string {
  const own = [v.firstName, v.lastName].filter(Boolean).join(' ');
  return personName(v.user) || own || v.userId || v.id;
}

export function KycTab() {
  const { t, lang } = useLanguage();
  const [status, setStatus] = useState<KycStatus | 'all'>('all');
  const [reviewing, setReviewing] = useState<KycVerification | null>(null);
  const overview = useQuery(kycOverviewQuery());
  const list = useInfiniteQuery(kycVerificationsQuery(status));
  const rows = list.data?.pages.flatMap((p) => p.items) ?? [];
  const o = overview.data;
  const hours = o?.averageProcessingTime;

  return (
    <div className="space-y-6">
      <section aria-labelledby="admin-kyc-overview">
        <h2 id="admin-kyc-overview" className="mb-4 text-lg font-semibold text-slate-900">
          {t('admin.kyc.overview')}
        </h2>
        {overview.isLoading ? (
          <LoadingBlock />
        ) : overview.error || !o ? (
          <ErrorBlock message={t('admin.errors.verifications')} onRetry={() => void overview.refetch()} />
        ) : (
          <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-5">
            <StatCard label={t('admin.kyc.total')} value={o.totalVerifications} testId="kyc-stat-total" />
            <StatCard label={t('admin.kyc.pending')} value={o.pendingVerifications} testId="kyc-stat-pending" />
            <StatCard label={t('admin.kyc.verified')} value={o.verifiedUsers} testId="kyc-stat-verified" />
            <StatCard label={t('admin.kyc.rejected')} value={o.rejectedVerifications} testId="kyc-stat-rejected" />
            <StatCard
              label={t('admin.kyc.avgTime')}
              value={hours == null ? '—' : t('admin.kyc.hours', { hours: Math.round(hours * 10) / 10 })}
              testId="kyc-stat-time"
            />
          </div>
        )}
      </section>
      <section className="space-y-4" aria-labelledby="admin-kyc-list">
        <div className="flex flex-wrap items-center justify-between gap-3">
          <h2 id="admin-kyc-list" className="text-lg font-semibold text-slate-900">
            {t('admin.kyc.list')}
          </h2>
          <select
            className={selectClass}
            aria-label={t('admin.kyc.statusFilter')}
            value={status}
            onChange={(e) => setStatus(e.target.value as KycStatus | 'all')}
            data-testid="kyc-status-filter"
          >
            <option value="all">{t('admin.kyc.status.all')}</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {t(statusLabel[s])}
              </option>
            ))}
          </select>
        </div>
        <ListState
          status={listStatus({ isLoading: list.isLoading, error: list.error, total: rows.length, filtered: status !== 'all' })}
          loading={<LoadingBlock />}
          error={<ErrorBlock message={t('admin.errors.verifications')} onRetry={() => void list.refetch()} />}
          empty={<EmptyState title={t('admin.kyc.empty')} icon={<Fingerprint className="h-8 w-8" />} testId="kyc-empty" />}
          noMatch={<EmptyState title={t('admin.kyc.noMatch')} icon={<Fingerprint className="h-8 w-8" />} testId="kyc-empty" />}
        >
          <AdminTable
            head={
              <>
                <Th>{t('admin.kyc.col.user')}</Th>
                <Th>{t('admin.kyc.col.type')}</Th>
                <Th>{t('admin.kyc.col.document')}</Th>
                <Th>{t('admin.kyc.col.status')}</Th>
                <Th>{t('admin.kyc.col.risk')}</Th>
                <Th>{t('admin.kyc.col.submitted')}</Th>
                <th className="px-4 py-3">
                  <span className="sr-only">{t('admin.kyc.review')}</span>
                </th>
              </>
            }
          >
            {rows.map((v) => (
              <tr key={v.id} data-testid="kyc-row" data-id={v.id}>
                <td className="px-4 py-3">
                  <div className="font-medium">{applicant(v)}</div>
                  {v.user?.email && (
                    <div className="text-xs text-slate-500" dir="ltr">
                      {v.user.email}
                    </div>
                  )}
                </td>
                <td className="px-4 py-3">{humanize(v.verificationType)}</td>
                <td className="px-4 py-3">
                  {humanize(v.documentType)} · {v.documentCountry}
                </td>
                <td className="px-4 py-3">
                  <Badge tone={statusTone[v.status] ?? 'neutral'}>{statusLabel[v.status] ? t(statusLabel[v.status]) : v.status}</Badge>
                </td>
                <td className="px-4 py-3">
                  {v.riskScore == null ? '—' : <Badge tone={riskTone[riskBand(v.riskScore)]}>{`${v.riskScore} · ${t(riskLabel[riskBand(v.riskScore)])}`}</Badge>}
                </td>
                <td className="px-4 py-3 text-slate-500">{formatDate(v.createdAt ?? v.submittedAt, lang)}</td>
                <td className="px-4 py-3 text-end">
                  <Button variant="outline" size="sm" onClick={() => setReviewing(v)} data-testid="kyc-review">
                    <Eye className="h-3.5 w-3.5" aria-hidden />
                    {t('admin.kyc.review')}
                  </Button>
                </td>
              </tr>
            ))}
          </AdminTable>
        </ListState>
        <div className="mt-4">
          <LoadMore
            hasMore={list.hasNextPage && !list.error}
            loading={list.isFetchingNextPage}
            onLoad={() => void list.fetchNextPage()}
            testId="kyc-load-more"
          />
        </div>
      </section>
      <Dialog open={reviewing !== null} onOpenChange={(o) => !o && setReviewing(null)}>
        {reviewing && <ReviewForm key={reviewing.id} verification={reviewing} onDone={() => setReviewing(null)} />}
      </Dialog>
    </div>
  );
}

function ReviewForm({ verification: v, onDone }: { verification: KycVerification; onDone(): void }) {
  const { t, lang } = useLanguage();
  const qc = useQueryClient();
  const [status, setStatus] = useState<KycStatus>(v.status);
  const [notes, setNotes] = useState(v.adminNotes ?? '');
  const [risk, setRisk] = useState(v.riskScore == null ? '' : String(v.riskScore));
  const [riskError, setRiskError] = useState(false);
  const parsed = parseRiskScore(risk);
  const band = parsed.ok && parsed.value !== undefined ? riskBand(parsed.value) : null;

  const save = useMutation({
    mutationFn: (body: Parameters<typeof updateVerification>[1]) => updateVerification(v.id, body),
    onSuccess: () => {
      toast({ title: t('admin.kyc.updated') });
      void qc.invalidateQueries({ queryKey: KYC_KEY });
      onDone();
    },
    onError: () => toast({ title: t('admin.kyc.updateFailed'), variant: 'destructive' }),
  });

  function submit(e: FormEvent) {
    e.preventDefault();
    if (!parsed.ok) return setRiskError(true);
    setRiskError(false);
    save.mutate({ status, adminNotes: notes.trim(), ...(parsed.value === undefined ? {} : { riskScore: parsed.value }) });
  }

  return (
    <DialogContent className="max-w-3xl" closeLabel={t('admin.close')} data-testid="kyc-review-dialog">
      <DialogHeader>
        <DialogTitle>{t('admin.kyc.reviewTitle')}</DialogTitle>
        <DialogDescription>{t('admin.kyc.reviewDescription', { name: applicant(v) })}</DialogDescription>
      </DialogHeader>
      <dl className="mb-4 grid grid-cols-2 gap-x-4 gap-y-2 text-sm sm:grid-cols-3">
        <div>
          <dt className="text-slate-500">{t('admin.kyc.col.type')}</dt>
          <dd>{humanize(v.verificationType)}</dd>
        </div>
        <div>
          <dt className="text-slate-500">{t('admin.kyc.col.document')}</dt>
          <dd>
            {humanize(v.documentType)} · {v.documentCountry}
          </dd>
        </div>
        <div>
          <dt className="text-slate-500">{t('admin.kyc.col.submitted')}</dt>
          <dd>{formatDate(v.createdAt ?? v.submittedAt, lang)}</dd>
        </div>
        {v.dateOfBirth && (
          <div>
            <dt className="text-slate-500">{t('admin.kyc.dateOfBirth')}</dt>
            <dd dir="ltr" className="text-start">{v.dateOfBirth}</dd>
          </div>
        )}
        {v.documentNumber && (
          <div>
            <dt className="text-slate-500">{t('admin.kyc.documentNumber')}</dt>
            <dd dir="ltr" className="text-start font-mono">{v.documentNumber}</dd>
          </div>
        )}
      </dl>
      <div className="mb-4 grid gap-3 sm:grid-cols-2">
        {(v.documents ?? []).length === 0 ? (
          <p className="text-sm text-slate-500">{t('admin.kyc.noDocuments')}</p>
        ) : (
          (v.documents ?? []).map((d) => <DocumentViewer key={d.id} doc={d} />)
        )}
      </div>
      <form className="space-y-4" onSubmit={submit} noValidate>
        <div className="grid gap-4 sm:grid-cols-2">
          <div className="space-y-1.5">
            <Label htmlFor="kyc-status">{t('admin.kyc.col.status')}</Label>
            <select id="kyc-status" className={`${selectClass} w-full`} value={status} onChange={(e) => setStatus(e.target.value as KycStatus)} data-testid="kyc-review-status">
              {STATUSES.map((s) => (
                <option key={s} value={s}>
                  {t(statusLabel[s])}
                </option>
              ))}
            </select>
          </div>
          <div className="space-y-1.5">
            <Label htmlFor="kyc-risk">{t('admin.kyc.riskScore')}</Label>
            <div className="flex items-center gap-2">
              <Input
                id="kyc-risk"
                type="number"
                min={0}
                max={100}
                step={1}
                dir="ltr"
                value={risk}
                onChange={(e) => setRisk(e.target.value)}
                aria-invalid={riskError ? true : undefined}
                aria-describedby="kyc-risk-hint"
                data-testid="kyc-review-risk"
              />
              {band && (
                <Badge tone={riskTone[band]} className="shrink-0" data-testid="kyc-review-risk-band">
                  {t(riskLabel[band])}
                </Badge>
              )}
            </div>
            <p id="kyc-risk-hint" className={riskError ? 'text-xs text-red-600' : 'text-xs text-slate-500'}>
              {riskError ? t('admin.kyc.riskInvalid') : t('admin.kyc.riskHint')}
            </p>
          </div>
        </div>
        <div className="space-y-1.5">
          <Label htmlFor="kyc-notes">{t('admin.kyc.notes')}</Label>
          <textarea
            id="kyc-notes"
            className="min-h-24 w-full rounded-md border border-slate-300 px-3 py-2 text-sm"
            value={notes}
            maxLength={2000}
            onChange={(e) => setNotes(e.target.value)}
            data-testid="kyc-review-notes"
          />
        </div>
        <div className="flex justify-end gap-2">
          <Button variant="outline" onClick={onDone}>
            {t('admin.cancel')}
          </Button>
          <Button type="submit" disabled={save.isPending} data-testid="kyc-review-save">
            {save.isPending ? t('admin.saving') : t('admin.kyc.save')}
          </Button>
        </div>
      </form>
    </DialogContent>
  );
}
