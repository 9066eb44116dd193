import type { QueryClient } from '@tanstack/react-query';
import type { Lang } from '../../i18n';
import { transactionsQuery } from '../transactions/api';
import { preloadable } from '../../lib/preloadable';
import type { Tab } from './link';

/*
 * Tabs that open at once (issue 31 §4). Analytics, Settings (with two cards of other features) and the Transactions
 * tab's plan payments are chunks of their own, loaded when first shown, so the dashboard's first paint stays within
 * its budget. So that the first switch to a tab does not wait for its chunk and then for its data: after the first
 * paint, while the browser is idle, the other tabs' first data is fetched; hovering or focusing a tab fetches its code
 * (a click starts with the pointer over it). The query factories of the lazily loaded tabs are imported lazily here
 * too, for the same budget. A module already asked for is the same request, and a cached query is not asked again
 * while fresh, so asking twice costs nothing.
 */

/**
 * Each lazily loaded tab (lib/preloadable.ts): rendered without suspending once its code is in, which the prefetch
 * below sees to.
 */
export const analyticsTab = preloadable(() => import('../analytics/components/analytics-tab').then((m) => m.AnalyticsTab));
export const settingsPanel = preloadable(() => import('../settings/components/settings-panel').then((m) => m.SettingsPanel));
export const planPaymentsSection = preloadable(() => import('./components/plan-payments-section').then((m) => m.PlanPaymentsSection));

/**
 * Fetches what `tab` shows first: outside the demo (which reads no API) its first data, and with `code` its code too.
 * The idle prefetch asks for data only: evaluating the other tabs' chunks is main-thread work (hundreds of
 * milliseconds on a slow phone) that would block the page the user is reading; a tab's code is fetched when the
 * pointer or the focus reaches it, just before the click.
 */
export function prefetchTab(tab: Tab, qc: QueryClient, lang: Lang, isDemo: boolean, code = true): void {
  const quietly = (p: Promise<unknown>) => void p.catch(() => undefined);
  switch (tab) {
    case 'transactions':
      if (code) quietly(planPaymentsSection.preload());
      if (!isDemo) {
        quietly(qc.prefetchInfiniteQuery(transactionsQuery('all', lang)));
        quietly(import('./plan-payments').then((m) => qc.prefetchQuery(m.planPaymentsQuery())));
      }
      return;
    case 'analytics':
      if (code) quietly(analyticsTab.preload());
      if (!isDemo) quietly(import('../analytics/api').then((m) => qc.prefetchQuery(m.analyticsQuery(12, m.localUtcOffset()))));
      return;
    case 'settings':
      // The panel and its two lazily loaded cards in parallel (not one after the other), and the cards' data.
      if (code) {
        quietly(settingsPanel.preload());
        quietly(import('../settings/cards').then((m) => Promise.all([m.connectedBrowsersCard.preload(), m.noticeSettingsCard.preload()])));
      }
      if (!isDemo) {
        quietly(import('../notifications/api').then((m) => qc.prefetchQuery(m.noticePreferencesQuery())));
        quietly(import('../extension/api').then((m) => qc.prefetchQuery(m.extensionTokensQuery())));
        quietly(import('../email-change/api').then((m) => qc.prefetchQuery(m.pendingEmailChangeQuery())));
      }
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
