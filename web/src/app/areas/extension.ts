/** /extension, /extension-ar and /extension/connect and their catalogue: one chunk. */
import { defineMessages } from '../../i18n';
import * as extension from '../../i18n/messages/extension';

defineMessages(extension);

export { ExtensionConnectPage } from '../../features/extension/components/connect-page';
export { ExtensionArPage, ExtensionPage } from '../../features/extension/components/extension-page';
