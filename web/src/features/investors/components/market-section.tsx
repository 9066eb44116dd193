import type { Lang } from '../../../i18n';
import { CLAIMS, MARKET_CLAIMS } from '../claims';
import { usePageT } from '../../../i18n';
import { ClaimGrid } from './claim-grid';
import { SectionHeading, sectionClass } from './section-heading';

/** Market analysis (English) / market figures (Arabic): the market's size and growth, its users and merchants, and our share of it. */
export function MarketSection({ lang, shaded = false }: { lang: Lang; shaded?: boolean }) {
  const t = usePageT(lang);
  return (
    <section id="market" aria-labelledby="investors-market-title" className={sectionClass(shaded)}>
      <div className="mx-auto max-w-7xl px-4 sm:px-6 lg:px-8">
        <SectionHeading
          id="investors-market-title"
          eyebrow={t('investors.market.eyebrow')}
          title={t(lang === 'ar' ? 'investors.market.arTitle' : 'investors.market.title')}
          subtitle={t('investors.market.subtitle')}
        />
        <ClaimGrid claims={[...MARKET_CLAIMS, CLAIMS.addressableMarket]} lang={lang} className="mt-12 lg:grid-cols-5" />
      </div>
    </section>
  );
}
