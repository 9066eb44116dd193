/** The forgot-password and reset-password pages and their catalogues: a small chunk of their own. */
import { defineMessages } from '../../i18n';
import * as auth from '../../i18n/messages/auth';
import * as passwords from '../../i18n/messages/passwords';
import * as passwordReset from '../../i18n/messages/password-reset';

defineMessages(auth, passwords, passwordReset);

export { ForgotPasswordPage } from '../../features/password-reset/components/forgot-password-page';
export { ResetPasswordPage } from '../../features/password-reset/components/reset-password-page';
