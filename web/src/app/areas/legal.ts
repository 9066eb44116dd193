/** The three legal pages and their catalogue: one chunk. */
import { defineMessages } from '../../i18n';
import * as legal from '../../i18n/messages/legal';

defineMessages(legal);

export { DisclaimersPage } from '../../features/legal/components/disclaimers-page';
export { PrivacyPage } from '../../features/legal/components/privacy-page';
export { TermsPage } from '../../features/legal/components/terms-page';
