import type { User } from '../../auth/api';
import { ProfileSettingsCard } from './profile-settings-card';
import { SecuritySettingsCard } from './security-settings-card';

/** The dashboard's Settings tab. Keyed by user id so a different account never sees a stale form. */
export function SettingsPanel({ user }: { user: User }) {
  return (
    <div className="grid items-start gap-6 lg:grid-cols-2">
      <ProfileSettingsCard key={user.id} user={user} />
      <SecuritySettingsCard user={user} />
    </div>
  );
}
