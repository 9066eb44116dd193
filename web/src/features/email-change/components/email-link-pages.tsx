import { EmailLinkPage } from './email-link-page';

/** /confirm-email: the link mailed to a new address. */
export const ConfirmEmailPage = () => <EmailLinkPage mode="confirm" />;
/** /revert-email: the "this was not me" link mailed to the old address. */
export const RevertEmailPage = () => <EmailLinkPage mode="revert" />;
