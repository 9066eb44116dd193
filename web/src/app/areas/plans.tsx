/** /plans and its catalogue: one chunk. */
import { useLocation, useSearch } from 'wouter';
import { AccessRequired } from '../../features/merchants/components/access-required';
import { defineMessages } from '../../i18n';
import * as plans from '../../i18n/messages/plans';

defineMessages(plans);

export { PlansPage } from '../../features/plans/components/plans-page';

/**
 * Signed-out /plans: asks to sign in (or register) and comes back to the same address, query included
 * (`/plans?tier=<id>` keeps the plan chosen on the landing page). Here, not in the entry: its words are this area's.
 */
export function PlansSignedOut() {
  const [location] = useLocation();
  const search = useSearch();
  return (
    <AccessRequired
      returnTo={search ? `${location}?${search}` : location}
      title="plans.access.title"
      body="plans.access.body"
      register="plans.access.register"
    />
  );
}
