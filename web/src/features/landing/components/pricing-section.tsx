import { useQuery } from '@tanstack/react-query';
import { Building2, Check, LoaderCircle, RotateCw, TriangleAlert } from 'lucide-react';
import { Link } from 'wouter';
import { Badge } from '../../../components/ui/badge';
import { Button, buttonClasses } from '../../../components/ui/button';
import type { Lang } from '../../../i18n';
import { cn } from '../../../lib/cn';
import { pricingCardHref } from '../../../lib/plan-links';
import { tiersQuery } from '../api';
import { usePageT } from '../../../i18n';
import { formatTier, type TierDisplay } from '../pricing-format';
import { SectionHeading } from './section-heading';
import { useAuth } from '../../auth/auth-context';

function PricingCard({ tier, popular, lang, monthlyPrice }: { tier: TierDisplay; popular: boolean; lang: Lang; monthlyPrice: number }) {
  const t = usePageT(lang);
  // Signed out: Start Free opens Register; Choose Plan opens Register and comes back to /plans with this tier chosen.
  // Signed in (the landing page in another language, or a session found after load), a plan is changed on /plans;
  // /auth would only send a signed-in visitor back to /.
  const { user } = useAuth();
  const titleId = `plan-${tier.id}-title`;
  return (
    <article
      data-testid="pricing-card"
      aria-labelledby={titleId}
      className={cn(
        'relative flex flex-col rounded-2xl border bg-white p-8',
        popular ? 'border-brand-600 shadow-xl shadow-brand-600/10 ring-1 ring-brand-600 lg:-my-4 lg:py-12' : 'border-slate-200 shadow-sm',
      )}
    >
      {popular && (
        <Badge tone="brand" className="absolute inset-x-0 -top-3 mx-auto w-fit bg-brand-600 px-3 py-1 text-white shadow-sm">
          {t('landing.pricing.popular')}
        </Badge>
      )}
      <h3 id={titleId} className="text-lg font-semibold text-slate-900">
        {tier.title}
      </h3>
      <p className="mt-4 flex items-baseline gap-1">
        <span className="text-4xl font-bold tracking-tight text-slate-900" dir="ltr">
          {tier.price.amount}
        </span>
        {tier.price.period && <span className="text-sm font-medium text-slate-500">{tier.price.period}</span>}
      </p>
      <p className="mt-2 text-sm text-slate-600">{tier.fee}</p>

      <Link
        href={pricingCardHref({ id: tier.id, monthlyPrice }, !!user)}
        aria-label={t('landing.pricing.cta.aria', { cta: tier.cta, plan: tier.title })}
        className={buttonClasses(popular ? 'primary' : 'outline', 'md', 'mt-6 w-full')}
      >
        {tier.cta}
      </Link>

      <h4 className="sr-only">{t('landing.pricing.limitsLabel')}</h4>
      <dl className="mt-8 space-y-3 border-t border-slate-100 pt-6 text-sm">
        {tier.limits.map((l) => (
          <div key={l.id} className="flex items-center justify-between gap-4">
            <dt className="text-slate-500">{l.label}</dt>
            <dd className="text-end font-medium text-slate-900">{l.value}</dd>
          </div>
        ))}
      </dl>

      {tier.features.length > 0 && (
        <>
          <h4 className="sr-only">{t('landing.pricing.featuresLabel')}</h4>
          <ul className="mt-6 space-y-3 border-t border-slate-100 pt-6 text-sm">
            {tier.features.map((f) => (
              <li key={f} className="flex items-start gap-3 text-slate-700">
                <Check className="mt-0.5 h-4 w-4 shrink-0 text-brand-600" aria-hidden />
                {f}
              </li>
            ))}
          </ul>
        </>
      )}
    </article>
  );
}

function PricingBody({ lang }: { lang: Lang }) {
  const t = usePageT(lang);
  const { data, isPending, isError } = useQuery(tiersQuery());

  if (isPending)
    return (
      <div role="status" className="mt-16 flex flex-col items-center gap-3 py-12 text-slate-600">
        <LoaderCircle className="h-8 w-8 animate-spin text-brand-600" aria-hidden />
        <p>{t('landing.pricing.loading')}</p>
      </div>
    );

  if (isError)
    return (
      <div role="alert" className="mx-auto mt-16 flex max-w-md flex-col items-center gap-4 rounded-2xl border border-red-200 bg-red-50 p-8 text-center">
        <TriangleAlert className="h-8 w-8 text-red-600" aria-hidden />
        <p className="font-medium text-red-800">{t('landing.pricing.error')}</p>
        {/* Spec §8: Retry reloads the page. */}
        <Button variant="outline" onClick={() => window.location.reload()}>
          <RotateCw className="h-4 w-4" aria-hidden />
          {t('landing.pricing.retry')}
        </Button>
      </div>
    );

  const tiers = data.tiers;
  if (tiers.length === 0) return <p className="mt-16 text-center text-slate-600">{t('landing.pricing.empty')}</p>;

  return (
    <div
      className={cn(
        'mx-auto mt-16 grid max-w-md items-start gap-8 md:max-w-none md:grid-cols-2',
        tiers.length >= 4 ? 'lg:grid-cols-4' : 'lg:grid-cols-3',
      )}
    >
      {tiers.map((tier, i) => (
        // Spec §4: the second tier in the list is the highlighted one.
        <PricingCard key={tier.id} tier={formatTier(tier, lang, t)} monthlyPrice={tier.monthlyPrice} popular={i === 1} lang={lang} />
      ))}
    </div>
  );
}

export function PricingSection({ lang }: { lang: Lang }) {
  const t = usePageT(lang);
  const enterpriseHref = `mailto:${t('landing.footer.email')}?subject=${encodeURIComponent(t('landing.footer.enterpriseSubject'))}`;
  return (
    <section id="pricing" aria-labelledby="pricing-title" className="scroll-mt-20 bg-white py-20 sm:py-24">
      <div className="mx-auto max-w-7xl px-4 sm:px-6 lg:px-8">
        <SectionHeading
          id="pricing-title"
          eyebrow={t('landing.pricing.eyebrow')}
          title={t('landing.pricing.title')}
          subtitle={t('landing.pricing.subtitle')}
        />
        <PricingBody lang={lang} />

        <div className="mx-auto mt-16 flex max-w-4xl flex-col items-center gap-6 rounded-2xl bg-slate-900 p-8 text-center text-white sm:flex-row sm:text-start">
          <span className="flex h-12 w-12 shrink-0 items-center justify-center rounded-xl bg-white/10">
            <Building2 className="h-6 w-6" aria-hidden />
          </span>
          <div className="flex-1">
            <h3 className="text-lg font-semibold">{t('landing.pricing.enterprise.title')}</h3>
            <p className="mt-1 text-sm text-slate-300">{t('landing.pricing.enterprise.body')}</p>
          </div>
          <a href={enterpriseHref} className={buttonClasses('outline', 'md', 'shrink-0 border-white/20 bg-white text-slate-900')}>
            {t('landing.pricing.enterprise.cta')}
          </a>
        </div>
      </div>
    </section>
  );
}
