import type { QueryClient } from '@tanstack/react-query';
import type { Lang } from '../../i18n';
import { analyticsQuery, localUtcOffset } from '../analytics/api';
import { transactionsQuery } from '../transactions/api';
import { preloadable } from '../../lib/preloadable';
import type { Tab } from './link';
import { planPaymentsQuery } from './plan-payments';

/*
 * Tabs that open at once (issue 31 §4). Analytics, Settings and the Transactions tab's plan payments are chunks of
 * their own, loaded when first shown, so the dashboard's first paint stays within its budget; without more, the
 * first switch to one waits for its chunk and then for its data. So, after the first paint, while the browser is idle,
 * the other tabs' chunks and first data are fetched; hovering or focusing a tab asks for that tab's at once (a click
 * starts with a pointer over it). import() of a module already asked for is the same request, and a query already
 * cached is not asked again until it is stale, so asking twice costs nothing.
 */

/**
 * Each lazily loaded tab (lib/preloadable.ts): rendered without suspending once its code is in, which the prefetch
 * below sees to.
 */
export const analyticsTab = preloadable(() => import('../analytics/components/analytics-tab').then((m) => m.AnalyticsTab));
export const settingsPanel = preloadable(() => import('../settings/components/settings-panel').then((m) => m.SettingsPanel));
export const planPaymentsSection = preloadable(() => import('./components/plan-payments-section').then((m) => m.PlanPaymentsSection));

/** Fetches what `tab` shows first: its code and, outside the demo (which reads no API), its first data. */
export function prefetchTab(tab: Tab, qc: QueryClient, lang: Lang, isDemo: boolean): void {
  const quietly = (p: Promise<unknown>) => void p.catch(() => undefined);
  switch (tab) {
    case 'transactions':
      quietly(planPaymentsSection.preload());
      if (!isDemo) {
        quietly(qc.prefetchInfiniteQuery(transactionsQuery('all', lang)));
        quietly(qc.prefetchQuery(planPaymentsQuery()));
      }
      return;
    case 'analytics':
      quietly(analyticsTab.preload());
      if (!isDemo) quietly(qc.prefetchQuery(analyticsQuery(12, localUtcOffset())));
      return;
    case 'settings':
      // Its cards' code and data are the panel's to know (settings-panel.tsx prefetchSettings).
      quietly(settingsPanel.preload().then(() => import('../settings/components/settings-panel')).then((m) => (isDemo ? undefined : m.prefetchSettings(qc))));
      return;
    default:
      // Overview, funding sources and bcards are in the dashboard's chunk and read the data its first paint reads.
      return;
  }
}

/** Runs `fn` when the browser is next idle (or after `ms` where it has no requestIdleCallback); returns a cancel. */
export function whenIdle(fn: () => void, ms = 2000): () => void {
  if (typeof requestIdleCallback === 'function') {
    const id = requestIdleCallback(fn, { timeout: ms });
    return () => cancelIdleCallback(id);
  }
  const id = setTimeout(fn, ms);
  return () => clearTimeout(id);
}
