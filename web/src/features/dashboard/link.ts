/** The dashboard's tabs, in their order on screen. */
export const TABS = ['overview', 'funding-sources', 'bcards', 'transactions', 'analytics', 'settings'] as const;
export type Tab = (typeof TABS)[number];
export const isTab = (v: string): v is Tab => (TABS as readonly string[]).includes(v);

export interface DashboardLink {
  tab: Tab | null;
  /** A transaction whose detail to open. */
  transaction: string | null;
  /** In Settings, the card `settings-<section>` to scroll to (security, notifications). */
  section: string | null;
}

/**
 * What a link into the dashboard asks for (a notice's link, issue 25: /?tab=transactions&transaction=col_…,
 * /?tab=settings&section=security): `tab`, `transaction` (its tab is Transactions unless said) and `section`.
 * Null when the query asks for none of them; unknown tabs and odd sections are ignored.
 */
export function dashboardLink(search: string): DashboardLink | null {
  const q = new URLSearchParams(search);
  const tab = q.get('tab');
  const transaction = q.get('transaction');
  const section = q.get('section');
  if (!tab && !transaction && !section) return null;
  return {
    tab: tab && isTab(tab) ? tab : transaction ? 'transactions' : section ? 'settings' : null,
    transaction: transaction || null,
    section: section && /^[a-z-]{1,40}$/.test(section) ? section : null,
  };
}
