import { Info } from 'lucide-react';
import { Link } from 'wouter';
import { buttonClasses } from '../../../components/ui/button';
import { useT, type MessageKey } from '../../../i18n';
import { cn } from '../../../lib/cn';
import { isAtLimit, planName, upgradeHint, type PlanName } from '../plan-limit';
import type { SourcePlan } from '../api';

export const planLabel: Record<PlanName, MessageKey> = {
  free: 'fundingSources.plan.free',
  starter: 'fundingSources.plan.starter',
  pro: 'fundingSources.plan.pro',
  premium: 'fundingSources.plan.premium',
  other: 'fundingSources.plan.other',
};

/**
 * "2 of 2 funding sources used on the Free plan" and the upgrade that would allow more. In demo mode the sample
 * sources do not count against the plan (Add only simulates, so it stays enabled): the banner says so in as many
 * words and states the allowance, never "3 of 2 used" beside an enabled Add (issue 16).
 */
export function PlanLimitBanner({
  plan,
  count,
  isDemo = false,
  className,
}: {
  plan: SourcePlan | undefined;
  count: number;
  isDemo?: boolean;
  className?: string;
}) {
  const t = useT();
  if (!plan) return null;
  const unlimited = plan.maxFundingSources === -1;
  const vars = { count, max: plan.maxFundingSources, plan: t(planLabel[planName(plan.currentTier)]) };
  const usage = isDemo
    ? unlimited
      ? t('fundingSources.limit.allowanceUnlimited', vars)
      : t('fundingSources.limit.allowance', vars)
    : unlimited
      ? t('fundingSources.limit.usedUnlimited', vars)
      : t('fundingSources.limit.used', vars);
  const hint = upgradeHint(plan);
  const full = !isDemo && isAtLimit(plan, count);
  return (
    <div
      className={cn(
        'flex items-start gap-3 rounded-lg border px-4 py-3 text-sm',
        full ? 'border-amber-200 bg-amber-50 text-amber-900' : 'border-brand-100 bg-brand-50 text-slate-700',
        className,
      )}
      data-testid="funding-source-limit"
      data-at-limit={full}
      data-demo={isDemo}
    >
      <Info className="mt-0.5 h-4 w-4 shrink-0" aria-hidden />
      <div className="space-y-0.5">
        <p className="font-medium">{usage}</p>
        {hint && (
          <p className="text-xs opacity-90">
            {hint === 'premium' ? t('fundingSources.limit.upgradePremium') : t('fundingSources.limit.upgrade')}
          </p>
        )}
        {hint && !isDemo && (
          <Link href="/plans" className={buttonClasses('outline', 'sm', 'mt-2 h-7 bg-white text-xs')} data-testid="funding-source-limit-plans">
            {t('fundingSources.limit.seePlans')}
          </Link>
        )}
      </div>
    </div>
  );
}
