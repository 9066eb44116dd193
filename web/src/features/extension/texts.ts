import { defineMessages } from '../../i18n';
import * as extension from '../../i18n/messages/extension';

/*
 * The texts of this feature's screens travel with the modules that show them. The extension area registers them for
 * its pages; Settings → Connected browsers is loaded lazily by the dashboard, whose area does not register this
 * catalogue, so the card imports this module (registering is idempotent).
 */
defineMessages(extension);
