/** The admin login and panel and their catalogue: one chunk, never reached from the consumer pages' chunks. */
import { useAdminSession, AdminPanelPage } from '../../features/admin/components/admin-panel-page';
import { LandingPage } from '../../features/landing/components/landing-page';
import { defineMessages } from '../../i18n';
import * as admin from '../../i18n/messages/admin';

defineMessages(admin);

export { AdminLoginPage } from '../../features/admin/components/admin-login-page';
export { AdminPanelPage };

/**
 * `/` when no consumer is signed in but this tab holds an admin token: the panel once the token is verified, the
 * landing page if it is not (docs/DECISIONS.md, Admin panel).
 */
export function AdminHome() {
  const adminSession = useAdminSession();
  if (adminSession.isLoading) return <div className="min-h-screen bg-slate-50" aria-busy="true" />;
  if (adminSession.admin) return <AdminPanelPage />;
  return <LandingPage lang="en" />;
}
