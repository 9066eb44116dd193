import { expect, test } from 'bun:test';
import { dashboardLink } from './link';

test('a notice link opens its tab, its transaction and its settings section', () => {
  expect(dashboardLink('')).toBeNull();
  expect(dashboardLink('?other=1')).toBeNull();
  expect(dashboardLink('tab=transactions&transaction=col_1')).toEqual({ tab: 'transactions', transaction: 'col_1', section: null });
  expect(dashboardLink('transaction=col_1')).toEqual({ tab: 'transactions', transaction: 'col_1', section: null });
  expect(dashboardLink('tab=settings&section=security')).toEqual({ tab: 'settings', transaction: null, section: 'security' });
  expect(dashboardLink('section=notifications')).toEqual({ tab: 'settings', transaction: null, section: 'notifications' });
  expect(dashboardLink('tab=bcards')).toEqual({ tab: 'bcards', transaction: null, section: null });
  // An unknown tab is ignored; a section that is no id is dropped.
  expect(dashboardLink('tab=nope')).toEqual({ tab: null, transaction: null, section: null });
  expect(dashboardLink('tab=settings&section=%3Cimg%3E')).toEqual({ tab: 'settings', transaction: null, section: null });
});
