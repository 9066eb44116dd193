/** /payment-demo and its catalogues: one chunk. */
import { defineMessages } from '../../i18n';
import * as paymentDemo from '../../i18n/messages/payment-demo';
import * as split from '../../i18n/messages/split';

defineMessages(paymentDemo, split);

export { PaymentDemoPage } from '../../features/payment-demo/components/payment-demo-page';
