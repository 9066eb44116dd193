import { describe, expect, test } from 'bun:test';
import { followField, noErrors } from './form-errors';

describe('field errors follow their field', () => {
  test('an error goes as soon as its field is valid', () => {
    expect(followField<'url' | 'events'>({ url: 'Enter the URL', events: 'Choose one' }, 'url', null)).toEqual({ events: 'Choose one' });
  });

  test('while still wrong, the error names the current problem', () => {
    expect(followField({ url: 'Enter the URL' }, 'url', 'Enter a full http(s) URL')).toEqual({ url: 'Enter a full http(s) URL' });
  });

  test('a field without an error gets none while it is typed in', () => {
    const shown = { url: 'Enter the URL' };
    expect(followField<'url' | 'description'>(shown, 'description', 'Too long')).toBe(shown);
    expect(followField<'url'>({}, 'url', 'Enter the URL')).toEqual({});
  });

  test('other fields keep their errors', () => {
    expect(followField<'a' | 'b'>({ a: 'x', b: 'y' }, 'a', null)).toEqual({ b: 'y' });
  });

  test('noErrors', () => {
    expect(noErrors({})).toBe(true);
    expect(noErrors({ a: undefined })).toBe(true);
    expect(noErrors({ a: 'x' })).toBe(false);
  });
});
