import { AlertCircle, RefreshCw, ShieldCheck } from 'lucide-react';
import { Badge } from '../../../components/ui/badge';
import { Button } from '../../../components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../../../components/ui/card';
import { useLanguage, type MessageKey } from '../../../i18n';
import { humanize, riskBand, riskWidth, statusBadge, type RiskBand } from '../format';
import type { KycVerification } from '../api';

/** A stored value as the wizard's options name it ("ID card"), else with underscores as spaces. */
function useValueLabel() {
  const { t } = useLanguage();
  return (value: string | null | undefined): string => {
    const shown = humanize(value);
    if (shown === null) return t('kyc.na');
    const key = `kyc.value.${value}` as MessageKey;
    const translated = t(key);
    return translated === key ? shown : translated;
  };
}

const bandBar = { low: 'bg-green-600', medium: 'bg-amber-500', high: 'bg-red-600' } as const;
const bandText = { low: 'text-green-700', medium: 'text-amber-700', high: 'text-red-700' } as const;
const bandLabel: Record<RiskBand, MessageKey> = { low: 'kyc.risk.low', medium: 'kyc.risk.medium', high: 'kyc.risk.high' };

/** The latest verification (spec §2): date, badge, types, risk bar, error, admin notes, and a restart when failed. */
export function KycStatusView({ verification, onSubmitNew }: { verification: KycVerification; onSubmitNew: () => void }) {
  const { t, lang } = useLanguage();
  const valueLabel = useValueLabel();
  const badge = statusBadge(verification.status);
  const risk = riskWidth(verification.riskScore);
  const submitted = new Date(verification.submittedAt);
  const date = Number.isNaN(submitted.getTime())
    ? t('kyc.na')
    : submitted.toLocaleDateString(lang === 'ar' ? 'ar' : 'en-US', { year: 'numeric', month: 'long', day: 'numeric' });

  return (
    <Card data-testid="kyc-status-view">
      <CardHeader>
        <div className="flex flex-wrap items-center justify-between gap-3">
          <CardTitle level={2} className="flex items-center gap-2">
            <ShieldCheck className="h-5 w-5 text-brand-600" aria-hidden />
            {t('kyc.statusView.title')}
          </CardTitle>
          <Badge tone={badge.tone} data-testid="kyc-status-badge">
            {t(badge.key)}
          </Badge>
        </div>
        <CardDescription data-testid="kyc-submitted-at">{t('kyc.statusView.submitted', { date })}</CardDescription>
      </CardHeader>
      <CardContent className="space-y-5">
        <dl className="grid gap-4 sm:grid-cols-2">
          <div>
            <dt className="text-sm text-slate-500">{t('kyc.statusView.verificationType')}</dt>
            <dd className="font-medium text-slate-900" data-testid="kyc-verification-type">
              {valueLabel(verification.verificationType)}
            </dd>
          </div>
          <div>
            <dt className="text-sm text-slate-500">{t('kyc.statusView.documentType')}</dt>
            <dd className="font-medium text-slate-900" data-testid="kyc-document-type">
              {valueLabel(verification.documentType)}
            </dd>
          </div>
        </dl>

        {risk !== null && (
          <div data-testid="kyc-risk" data-band={riskBand(risk)}>
            <div className="mb-1 flex items-center justify-between gap-2 text-sm">
              <span className="text-slate-600">{t('kyc.statusView.risk')}</span>
              <span className={`font-medium ${bandText[riskBand(risk)]}`}>
                {t(bandLabel[riskBand(risk)])}{' '}
                <span className="tabular-nums" dir="ltr">
                  {t('kyc.statusView.riskValue', { score: risk })}
                </span>
              </span>
            </div>
            <div
              className="h-2 w-full overflow-hidden rounded-full bg-slate-200"
              role="progressbar"
              aria-label={t('kyc.statusView.risk')}
              aria-valuemin={0}
              aria-valuemax={100}
              aria-valuenow={risk}
              aria-valuetext={`${t(bandLabel[riskBand(risk)])}, ${t('kyc.statusView.riskValue', { score: risk })}`}
            >
              <div className={`h-full rounded-full ${bandBar[riskBand(risk)]}`} style={{ width: `${risk}%` }} data-testid="kyc-risk-bar" />
            </div>
          </div>
        )}

        {verification.errorMessage && (
          <div className="flex gap-2 rounded-md border border-red-200 bg-red-50 p-3 text-sm text-red-800" role="alert" data-testid="kyc-error">
            <AlertCircle className="mt-0.5 h-4 w-4 shrink-0" aria-hidden />
            <div>
              <p className="font-semibold">{t('kyc.statusView.error')}</p>
              <p>{verification.errorMessage}</p>
            </div>
          </div>
        )}

        {verification.adminNotes && (
          <div className="rounded-md border border-slate-200 bg-slate-50 p-3 text-sm text-slate-700" data-testid="kyc-admin-notes">
            <p className="font-semibold text-slate-900">{t('kyc.statusView.adminNotes')}</p>
            <p className="whitespace-pre-wrap">{verification.adminNotes}</p>
          </div>
        )}

        {verification.status === 'failed' && (
          <Button onClick={onSubmitNew} data-testid="kyc-submit-new">
            <RefreshCw className="h-4 w-4" aria-hidden />
            {t('kyc.statusView.submitNew')}
          </Button>
        )}
      </CardContent>
    </Card>
  );
}
