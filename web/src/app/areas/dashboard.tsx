/** The consumer dashboard (`/` signed in) and its catalogues: one chunk. */
import { TooltipProvider } from '../../components/ui/tooltip';
import { DashboardPage as Dashboard } from '../../features/dashboard/components/dashboard-page';
import { defineMessages } from '../../i18n';
import * as analytics from '../../i18n/messages/analytics';
import * as bcards from '../../i18n/messages/bcards';
import * as dashboard from '../../i18n/messages/dashboard';
import * as fundingSources from '../../i18n/messages/funding-sources';
import * as notifications from '../../i18n/messages/notifications';
import * as profile from '../../i18n/messages/profile';
import * as settings from '../../i18n/messages/settings';
import * as split from '../../i18n/messages/split';

defineMessages(dashboard, analytics, fundingSources, bcards, profile, settings, split, notifications);

/**
 * The dashboard is the only screen with tooltips, so their provider (and Radix's positioning code, ~10 KB gzip) lives
 * here rather than around the whole app, outside the entry chunk.
 */
export function DashboardPage() {
  return (
    <TooltipProvider>
      <Dashboard />
    </TooltipProvider>
  );
}
