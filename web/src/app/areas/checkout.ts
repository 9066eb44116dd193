/** The checkout popup (/checkout/pay) and its catalogue: one chunk. */
import { defineMessages } from '../../i18n';
import * as checkout from '../../i18n/messages/checkout';

defineMessages(checkout);

export { CheckoutPayPage } from '../../features/checkout/components/checkout-pay-page';
