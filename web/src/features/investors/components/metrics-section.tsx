import type { Lang } from '../../../i18n';
import { METRIC_CLAIMS } from '../claims';
import { usePageT } from '../../../i18n';
import { ClaimGrid } from './claim-grid';
import { SectionHeading, sectionClass } from './section-heading';

/** Key metrics: growth, volume, users, retention, patents and the live status. */
export function MetricsSection({ lang, shaded = false }: { lang: Lang; shaded?: boolean }) {
  const t = usePageT(lang);
  return (
    <section id="metrics" aria-labelledby="investors-metrics-title" className={sectionClass(shaded)}>
      <div className="mx-auto max-w-7xl px-4 sm:px-6 lg:px-8">
        <SectionHeading
          id="investors-metrics-title"
          eyebrow={t('investors.metrics.eyebrow')}
          title={t('investors.metrics.title')}
          subtitle={t('investors.metrics.subtitle')}
        />
        <ClaimGrid claims={METRIC_CLAIMS} lang={lang} className="mx-auto mt-12 max-w-5xl sm:grid-cols-3" />
      </div>
    </section>
  );
}
