import { useInvestorsPage } from '../hooks/use-investors-page';
import { ClosingSection } from './closing-section';
import { HeroSection } from './hero-section';
import { InvestorsLayout } from './investors-layout';
import { MarketSection } from './market-section';
import { MetricsSection } from './metrics-section';
import { BusinessModelSection } from './model-sections';

/** /investors: the English pitch page (spec §2): hero, market analysis, key metrics, business model, closing call to action. */
export function InvestorsPage() {
  useInvestorsPage('en');
  return (
    <InvestorsLayout lang="en" testId="InvestorsPage">
      <HeroSection lang="en" />
      <MarketSection lang="en" shaded />
      <MetricsSection lang="en" />
      <BusinessModelSection lang="en" shaded />
      <ClosingSection lang="en" />
    </InvestorsLayout>
  );
}
