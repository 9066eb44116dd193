/** /kyc-verification and its catalogue: one chunk. */
import { defineMessages } from '../../i18n';
import * as kyc from '../../i18n/messages/kyc';

defineMessages(kyc);

export { KycVerificationPage } from '../../features/kyc/components/kyc-page';
