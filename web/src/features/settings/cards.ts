import { preloadable } from '../../lib/preloadable';

/*
 * The Settings tab's two cards that belong to other features (connected browsers: the extension's; the mail choices:
 * the notification centre's), each loaded when Settings first shows. Defined here, apart from the panel, so the
 * dashboard's prefetch (dashboard/prefetch.ts) can load them ahead without loading the panel first: the cards then
 * render at once, not after a placeholder.
 */
export const connectedBrowsersCard = preloadable(() =>
  import('../extension/components/connected-browsers-card').then((m) => m.ConnectedBrowsersCard),
);
export const noticeSettingsCard = preloadable(() =>
  import('../notifications/components/notification-settings-card').then((m) => m.NotificationSettingsCard),
);
