/** The merchant portal and dashboard and their catalogue: one chunk. */
import { defineMessages } from '../../i18n';
import * as merchantOperations from '../../i18n/messages/merchant-operations';
import * as merchants from '../../i18n/messages/merchants';

defineMessages(merchants);
defineMessages(merchantOperations);

export { MerchantDashboardPage } from '../../features/merchants/components/merchant-dashboard-page';
export { MerchantPortalPage } from '../../features/merchants/components/merchant-portal-page';
