import { Suspense } from 'react';
import { connectedBrowsersCard, noticeSettingsCard } from '../cards';
import { Card } from '../../../components/ui/card';
import type { User } from '../../auth/api';
import '../texts';
import { ProfileSettingsCard } from './profile-settings-card';
import { SecuritySettingsCard } from './security-settings-card';

/*
 * Connected browsers belong to the extension feature (its texts, calls and dialog); the panel composes it as the
 * dashboard composes the features' panels. It loads when Settings first shows, so the dashboard's first paint stays in
 * budget, and it registers its own texts.
 */
const ConnectedBrowsersCard = connectedBrowsersCard.Component;
/** Likewise the notification centre's mail choices (features/notifications). */
const NotificationSettingsCard = noticeSettingsCard.Component;

/** Where a link's `section` (a notice's /?tab=settings&section=security) scrolls to. */
export const SECURITY_SETTINGS_ID = 'settings-security';

/** The dashboard's Settings tab. Keyed by user id so a different account never sees a stale form. */
export function SettingsPanel({ user }: { user: User }) {
  return (
    <div className="grid items-start gap-6 lg:grid-cols-2">
      <ProfileSettingsCard key={user.id} user={user} />
      <div id={SECURITY_SETTINGS_ID} tabIndex={-1} className="scroll-mt-24 outline-none">
        <SecuritySettingsCard user={user} />
      </div>
      <Suspense fallback={<Card className="h-40" aria-busy="true" />}>
        <NotificationSettingsCard key={user.id} fallback={<Card className="h-40" aria-busy="true" />} />
      </Suspense>
      <Suspense fallback={<Card className="h-40" aria-busy="true" />}>
        <ConnectedBrowsersCard key={user.id} fallback={<Card className="h-40" aria-busy="true" />} />
      </Suspense>
    </div>
  );
}
