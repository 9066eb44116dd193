/** The Merchant and Customer checkout demos and their catalogues: one chunk. */
import { defineMessages } from '../../i18n';
import * as demos from '../../i18n/messages/demos';
import * as split from '../../i18n/messages/split';

defineMessages(demos, split);

export { AddonCheckoutDemoPage } from '../../features/checkout-demos/components/addon-demo-page';
export { BannerCheckoutDemoPage } from '../../features/checkout-demos/components/banner-demo-page';
