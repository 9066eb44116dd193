import { defineMessages } from '../../i18n';
import * as emailChange from '../../i18n/messages/email-change';
import * as passwords from '../../i18n/messages/passwords';

/*
 * The Settings tab loads when first opened (the dashboard's first paint stays within its budget), so the texts only it
 * shows travel with it (the settings catalogue stays with the dashboard area: country names are in it); the panel imports this module (registering is
 * idempotent, and the e-mail change pages' area registers its own).
 */
defineMessages(emailChange, passwords);
