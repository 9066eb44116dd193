/** /plans and its catalogue: one chunk. */
import { defineMessages } from '../../i18n';
import * as plans from '../../i18n/messages/plans';

defineMessages(plans);

export { PlansPage } from '../../features/plans/components/plans-page';
