import { defineMessages } from '../../i18n';
import * as receivables from '../../i18n/messages/receivables';

/*
 * The owed details and the Repay dialog load only when something is owed (the dashboard's first chunk stays in its
 * budget), so their texts travel with them: the details import this module (registering is idempotent).
 */
defineMessages(receivables);
