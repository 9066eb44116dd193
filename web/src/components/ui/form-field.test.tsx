import { describe, expect, test } from 'bun:test';
import { renderToStaticMarkup } from 'react-dom/server';
import { fieldControlProps, FormField } from './form-field';

describe('fieldControlProps', () => {
  test('valid, no description: aria-invalid false, described by nothing', () => {
    expect(fieldControlProps('f', {})).toEqual({ id: 'f', 'aria-invalid': false, 'aria-describedby': undefined });
  });
  test('an error: invalid, described by the error', () => {
    expect(fieldControlProps('f', { error: 'Bad' })).toEqual({ id: 'f', 'aria-invalid': true, 'aria-describedby': 'f-error' });
  });
  test('a description: described by it', () => {
    expect(fieldControlProps('f', { description: true })).toEqual({ id: 'f', 'aria-invalid': false, 'aria-describedby': 'f-hint' });
  });
  test('both: the error first, then the description', () => {
    expect(fieldControlProps('f', { error: 'Bad', description: true })['aria-describedby']).toBe('f-error f-hint');
  });
  test('an empty or null error is no error', () => {
    expect(fieldControlProps('f', { error: '' })['aria-invalid']).toBe(false);
    expect(fieldControlProps('f', { error: null })['aria-describedby']).toBeUndefined();
  });
});

describe('FormField', () => {
  const render = (props: Partial<Parameters<typeof FormField>[0]>) =>
    renderToStaticMarkup(
      <FormField id="shop-name" label="Name" {...props}>
        {(control) => <input {...control} />}
      </FormField>,
    );

  test('label for the control; the control valid and described by nothing', () => {
    expect(render({})).toBe(
      '<div class="space-y-1.5"><label class="text-sm font-medium text-slate-700" for="shop-name">Name</label>' +
        '<input id="shop-name" aria-invalid="false"/></div>',
    );
  });

  test('an error: under the control, an alert with its id, the control pointing at it', () => {
    const out = render({ error: 'Required', errorTestId: 'shop-name-error' });
    expect(out).toContain('<input id="shop-name" aria-invalid="true" aria-describedby="shop-name-error"/>');
    expect(out).toContain('<p id="shop-name-error" role="alert" class="text-xs text-red-600" data-testid="shop-name-error">Required</p>');
  });

  test('a description sits between the control and the error, and both describe the control', () => {
    const out = render({ error: 'Required', description: 'As on the statement.' });
    expect(out).toContain('aria-describedby="shop-name-error shop-name-hint"');
    const hint = out.indexOf('<p id="shop-name-hint" class="text-xs text-slate-500">As on the statement.</p>');
    expect(hint).toBeGreaterThan(out.indexOf('<input'));
    expect(out.indexOf('id="shop-name-error"')).toBeGreaterThan(hint);
  });

  test('something on the label line; another spacing', () => {
    const out = render({ labelAside: <span>Visa</span>, className: 'space-y-2' });
    expect(out).toStartWith(
      '<div class="space-y-2"><div class="flex items-center justify-between gap-2"><label class="text-sm font-medium text-slate-700" for="shop-name">Name</label><span>Visa</span></div>',
    );
  });
});
