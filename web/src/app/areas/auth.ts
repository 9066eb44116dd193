/** The sign-in and registration page (/auth) and its catalogue: a small chunk of its own. */
import { defineMessages } from '../../i18n';
import * as auth from '../../i18n/messages/auth';
import * as passwords from '../../i18n/messages/passwords';
import * as signInLink from '../../i18n/messages/sign-in-link';

defineMessages(auth, passwords, signInLink);

export { AuthPage } from '../../features/auth/components/auth-page';
