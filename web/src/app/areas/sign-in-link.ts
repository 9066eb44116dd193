/** The page the sign-in link mail opens (/sign-in-link) and its catalogues: a small chunk of its own. */
import { defineMessages } from '../../i18n';
import * as auth from '../../i18n/messages/auth';
import * as passwords from '../../i18n/messages/passwords';
import * as signInLink from '../../i18n/messages/sign-in-link';

defineMessages(auth, passwords, signInLink);

export { SignInLinkPage } from '../../features/sign-in-link/components/sign-in-link-page';
