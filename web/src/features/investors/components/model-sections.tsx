import type { Lang } from '../../../i18n';
import { usePageT } from '../../../i18n';
import { PlansList } from './plans-list';
import { RevenueChart } from './revenue-chart';
import { RevenueStreams } from './revenue-streams';
import { SectionHeading, sectionClass } from './section-heading';

/** English: one "Business Model" section with the revenue sources and the projection chart. */
export function BusinessModelSection({ lang, shaded = false }: { lang: Lang; shaded?: boolean }) {
  const t = usePageT(lang);
  return (
    <section id="business-model" aria-labelledby="investors-model-title" className={sectionClass(shaded)}>
      <div className="mx-auto max-w-7xl px-4 sm:px-6 lg:px-8">
        <SectionHeading
          id="investors-model-title"
          eyebrow={t('investors.model.eyebrow')}
          title={t('investors.model.title')}
          subtitle={t('investors.model.subtitle')}
        />
        <div className="mt-12">
          <RevenueStreams lang={lang} />
        </div>
        <div className="mx-auto mt-12 max-w-3xl">
          <RevenueChart lang={lang} />
        </div>
      </div>
    </section>
  );
}

/** Arabic: the revenue sources with the plans on offer (prices and fees from the API). */
export function RevenueSourcesSection({ lang, shaded = false }: { lang: Lang; shaded?: boolean }) {
  const t = usePageT(lang);
  return (
    <section id="revenue" aria-labelledby="investors-revenue-title" className={sectionClass(shaded)}>
      <div className="mx-auto max-w-7xl px-4 sm:px-6 lg:px-8">
        <SectionHeading
          id="investors-revenue-title"
          eyebrow={t('investors.model.eyebrow')}
          title={t('investors.model.arTitle')}
          subtitle={t('investors.model.subtitle')}
        />
        <div className="mt-12">
          <RevenueStreams lang={lang} />
        </div>
        <PlansList lang={lang} />
      </div>
    </section>
  );
}

/** Arabic: projected revenue in its own section. */
export function ProjectionsSection({ lang, shaded = false }: { lang: Lang; shaded?: boolean }) {
  const t = usePageT(lang);
  return (
    <section id="projections" aria-labelledby="investors-projections-title" className={sectionClass(shaded)}>
      <div className="mx-auto max-w-3xl px-4 sm:px-6 lg:px-8">
        <SectionHeading
          id="investors-projections-title"
          eyebrow={t('investors.projections.eyebrow')}
          title={t('investors.projections.title')}
          subtitle={t('investors.projections.subtitle')}
        />
        <div className="mt-12">
          <RevenueChart lang={lang} />
        </div>
      </div>
    </section>
  );
}
