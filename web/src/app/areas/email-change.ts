/** The pages the e-mail change links open (/confirm-email, /revert-email) and their catalogue: a small chunk. */
import { defineMessages } from '../../i18n';
import * as emailChange from '../../i18n/messages/email-change';

defineMessages(emailChange);

export { ConfirmEmailPage, RevertEmailPage } from '../../features/email-change/components/email-link-pages';
