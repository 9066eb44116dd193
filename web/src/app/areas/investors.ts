/** /investors and /investors-ar and their catalogue: one chunk. */
import { defineMessages } from '../../i18n';
import * as investors from '../../i18n/messages/investors';

defineMessages(investors);

export { InvestorsArPage } from '../../features/investors/components/investors-ar-page';
export { InvestorsPage } from '../../features/investors/components/investors-page';
