import { useInvestorsPage } from '../hooks/use-investors-page';
import { AdvantagesSection } from './advantages-section';
import { ClosingSection } from './closing-section';
import { HeroSection } from './hero-section';
import { InvestorsLayout } from './investors-layout';
import { MarketSection } from './market-section';
import { MetricsSection } from './metrics-section';
import { ProjectionsSection, RevenueSourcesSection } from './model-sections';

/**
 * /investors-ar: the Arabic, right-to-left pitch page (spec §2): live-platform badge, market figures, revenue
 * sources with the plans, projected revenue, metrics, competitive advantages, contact and footer.
 */
export function InvestorsArPage() {
  useInvestorsPage('ar');
  return (
    <InvestorsLayout lang="ar" testId="InvestorsArPage">
      <HeroSection lang="ar" />
      <MarketSection lang="ar" shaded />
      <RevenueSourcesSection lang="ar" />
      <ProjectionsSection lang="ar" shaded />
      <MetricsSection lang="ar" />
      <AdvantagesSection lang="ar" shaded />
      <ClosingSection lang="ar" />
    </InvestorsLayout>
  );
}
