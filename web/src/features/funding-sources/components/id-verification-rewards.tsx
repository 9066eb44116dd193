import { BadgeCheck, IdCard, Sparkles } from 'lucide-react';
import { useLocation } from 'wouter';
import { Badge } from '../../../components/ui/badge';
import { Button } from '../../../components/ui/button';
import { useT } from '../../../i18n';

/**
 * The Free plan's offer (spec §5, §6): ID verification adds a third source and lifts the same-name rule.
 * 'Start ID Verification' shows only when an unverified free user has reached the limit.
 */
export function IdVerificationRewards({ verified, showStart }: { verified: boolean; showStart: boolean }) {
  const t = useT();
  const [, navigate] = useLocation();
  return (
    <section
      className="rounded-xl border border-brand-100 bg-gradient-to-br from-brand-50 to-white p-6 shadow-sm"
      data-testid="id-verification-rewards"
      aria-labelledby="id-verification-rewards-title"
    >
      <div className="flex items-start gap-4">
        <span className="flex h-10 w-10 shrink-0 items-center justify-center rounded-lg bg-brand-600 text-white" aria-hidden>
          <IdCard className="h-5 w-5" />
        </span>
        <div className="min-w-0 flex-1 space-y-3">
          <div className="flex flex-wrap items-center gap-2">
            <h3 id="id-verification-rewards-title" className="text-base font-semibold text-slate-900">
              {t('fundingSources.rewards.title')}
            </h3>
            {verified && (
              <Badge tone="green" className="gap-1">
                <BadgeCheck className="h-3.5 w-3.5" aria-hidden />
                {t('fundingSources.rewards.unlocked')}
              </Badge>
            )}
          </div>
          <p className="text-sm text-slate-600">
            {verified ? t('fundingSources.rewards.verifiedBody') : t('fundingSources.rewards.body')}
          </p>
          <ul className="space-y-2 text-sm text-slate-700">
            <li className="flex items-start gap-2">
              <Sparkles className="mt-0.5 h-4 w-4 shrink-0 text-brand-600" aria-hidden />
              {t('fundingSources.rewards.extraSource')}
            </li>
            <li className="flex items-start gap-2">
              <Sparkles className="mt-0.5 h-4 w-4 shrink-0 text-brand-600" aria-hidden />
              {t('fundingSources.rewards.anyName')}
            </li>
          </ul>
          {!verified && <p className="text-xs text-slate-500">{t('fundingSources.rewards.nameRule')}</p>}
          {showStart && (
            <Button onClick={() => navigate('/kyc-verification')} data-testid="start-id-verification">
              <IdCard className="h-4 w-4" aria-hidden />
              {t('fundingSources.rewards.start')}
            </Button>
          )}
        </div>
      </div>
    </section>
  );
}
