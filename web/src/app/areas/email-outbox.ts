/** The e-mail outbox page (admins, or a local install's own browser) and its catalogue: a chunk of its own. */
import { defineMessages } from '../../i18n';
import * as emailOutbox from '../../i18n/messages/email-outbox';

defineMessages(emailOutbox);

export { EmailOutboxPage } from '../../features/admin/components/email-outbox-page';
