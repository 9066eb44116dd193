/** The sign-in and registration page (/auth) and its catalogue: a small chunk of its own. */
import { defineMessages } from '../../i18n';
import * as auth from '../../i18n/messages/auth';
import * as passwords from '../../i18n/messages/passwords';

defineMessages(auth, passwords);

export { AuthPage } from '../../features/auth/components/auth-page';
