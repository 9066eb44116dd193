/**
 * Settings → Notifications, as the dashboard addresses it (`tab` and `section` in its query string, the same form the
 * server writes into notices' links: /?tab=settings&section=security).
 */
export const NOTIFICATION_SETTINGS_PATH = '/?tab=settings&section=notifications';
/** The id of the settings card, where `section=notifications` scrolls to. */
export const NOTIFICATION_SETTINGS_ID = 'settings-notifications';
