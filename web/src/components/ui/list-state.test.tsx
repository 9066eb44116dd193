import { describe, expect, test } from 'bun:test';
import { renderToStaticMarkup } from 'react-dom/server';
import { LanguageProvider } from '../../i18n';
import { EmptyState, ListState, listStatus, LoadError, LoadingLine, type ListStatus } from './list-state';

describe('listStatus', () => {
  const cases: Array<{ name: string; input: Parameters<typeof listStatus>[0]; expected: ListStatus }> = [
    { name: 'loading wins over everything', input: { isLoading: true, error: new Error('x'), total: 3 }, expected: 'loading' },
    { name: 'a failed load', input: { isLoading: false, error: new Error('x'), total: 0 }, expected: 'error' },
    { name: 'a failed load with items from before', input: { isLoading: false, error: new Error('x'), total: 2 }, expected: 'error' },
    { name: 'nothing at all', input: { isLoading: false, error: null, total: 0 }, expected: 'empty' },
    { name: 'nothing under a filter', input: { isLoading: false, error: null, total: 0, filtered: true }, expected: 'no-match' },
    { name: 'loaded items all hidden by a page filter', input: { isLoading: false, error: null, total: 4, shown: 0 }, expected: 'no-match' },
    { name: 'items', input: { isLoading: false, error: null, total: 2 }, expected: 'items' },
    { name: 'items under a filter', input: { isLoading: false, error: null, total: 2, shown: 1, filtered: true }, expected: 'items' },
  ];
  for (const c of cases) test(c.name, () => expect(listStatus(c.input)).toBe(c.expected));
});

const html = (node: React.ReactNode) => renderToStaticMarkup(<LanguageProvider path="/">{node}</LanguageProvider>);

describe('ListState', () => {
  const states = { error: <i>error</i>, empty: <i>empty</i>, noMatch: <i>no match</i>, loading: <i>loading</i> };

  test('shows exactly the state it is given', () => {
    expect(html(<ListState status="loading" {...states}>items</ListState>)).toBe('<i>loading</i>');
    expect(html(<ListState status="error" {...states}>items</ListState>)).toBe('<i>error</i>');
    expect(html(<ListState status="empty" {...states}>items</ListState>)).toBe('<i>empty</i>');
    expect(html(<ListState status="no-match" {...states}>items</ListState>)).toBe('<i>no match</i>');
    expect(html(<ListState status="items" {...states}>items</ListState>)).toBe('items');
  });

  test('no-match falls back to the empty state, and empty to the items (a list that draws its own empty row)', () => {
    expect(html(<ListState status="no-match" error="e" empty={<i>empty</i>}>items</ListState>)).toBe('<i>empty</i>');
    expect(html(<ListState status="no-match" error="e">items</ListState>)).toBe('items');
    expect(html(<ListState status="empty" error="e">items</ListState>)).toBe('items');
  });

  test('loading defaults to the loading line', () => {
    expect(html(<ListState status="loading" error="e">items</ListState>)).toBe(html(<LoadingLine />));
    expect(html(<LoadingLine />)).toContain('aria-busy="true"');
    expect(html(<LoadingLine />)).toContain('Loading...');
  });
});

test('LoadError says what failed, then the server message, as an alert with Retry', () => {
  const out = html(<LoadError message="Could not load." error={new Error('database is down')} onRetry={() => {}} />);
  expect(out).toContain('role="alert"');
  expect(out).toContain('<p class="text-sm text-red-700">Could not load. database is down</p>');
  expect(out).toContain('>Retry</button>');
});

test('EmptyState is a div, or an li with extra classes inside a list', () => {
  const div = html(<EmptyState icon="*" title="None yet" description="Add one." testId="x-empty" />);
  expect(div).toStartWith('<div class="flex flex-col items-center justify-center rounded-xl');
  expect(div).toContain('data-testid="x-empty"');
  expect(div).toContain('<p class="text-base font-semibold text-slate-900">None yet</p>');
  expect(div).toContain('<p class="mt-1 max-w-sm text-sm text-slate-500">Add one.</p>');
  const li = html(<EmptyState as="li" className="lg:col-span-2" icon="*" title="None yet" />);
  expect(li).toStartWith('<li class="flex flex-col items-center justify-center rounded-xl');
  expect(li).toContain('px-6 py-12 text-center lg:col-span-2"');
  expect(li).not.toContain('max-w-sm');
});
