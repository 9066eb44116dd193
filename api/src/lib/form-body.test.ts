import { describe, expect, test } from 'bun:test';
import { t } from 'elysia';
import { coerceFormValues, FormBodyError, parseStripeForm, splitFormKey, type FormSchema } from './form-body';

const problemOf = (text: string, limits?: Parameters<typeof parseStripeForm>[1]) => {
  try {
    parseStripeForm(text, limits);
  } catch (e) {
    if (e instanceof FormBodyError) return e.problem;
    throw e;
  }
  return null;
};

describe('parseStripeForm', () => {
  test('plain keys are strings, decoded (+ is a space, %XX escapes)', () => {
    expect(parseStripeForm('amount=2000&currency=usd&description=Order+%2342')).toEqual({ amount: '2000', currency: 'usd', description: 'Order #42' });
  });

  test('an empty body is an empty object', () => {
    expect(parseStripeForm('')).toEqual({});
  });

  test('brackets nest objects, as Stripe sends metadata and payment_method_data', () => {
    expect(parseStripeForm('metadata[order]=42&metadata[note]=hi&payment_method_data[card][number]=4242&payment_method_data[type]=card')).toEqual({
      metadata: { order: '42', note: 'hi' },
      payment_method_data: { card: { number: '4242' }, type: 'card' },
    });
  });

  test('encoded brackets read like plain ones', () => {
    expect(parseStripeForm('metadata%5Border%5D=42')).toEqual({ metadata: { order: '42' } });
  });

  test('empty brackets append to a list, in order', () => {
    expect(parseStripeForm('expand[]=a&expand[]=b')).toEqual({ expand: ['a', 'b'] });
  });

  test('indexed lists (stripe-node sends expand[0]=...) keep index order and drop holes', () => {
    expect(parseStripeForm('expand[1]=b&expand[0]=a')).toEqual({ expand: ['a', 'b'] });
    expect(parseStripeForm('a[0]=x&a[5]=y')).toEqual({ a: ['x', 'y'] });
  });

  test('lists of objects by index', () => {
    expect(parseStripeForm('items[0][price]=p1&items[0][qty]=2&items[1][price]=p2')).toEqual({
      items: [{ price: 'p1', qty: '2' }, { price: 'p2' }],
    });
  });

  test('an empty value is an empty string (Stripe reads it as "unset")', () => {
    expect(parseStripeForm('description=')).toEqual({ description: '' });
  });

  test('__proto__ is an ordinary own key, never the prototype', () => {
    const body = parseStripeForm('metadata[__proto__]=x&__proto__[polluted]=1');
    expect(Object.getPrototypeOf(body)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(body.metadata as object)).toEqual(['__proto__']);
  });

  test('malformed keys are refused by name', () => {
    for (const key of ['a[b', 'a]b', '[a]', 'a[b]c', 'a[[b]]', '']) {
      const p = problemOf(`${encodeURIComponent(key)}=1`);
      expect(p?.kind).toBe('malformed');
    }
  });

  test('one name as a value and as an object (or list) is refused', () => {
    expect(problemOf('a=1&a[b]=2')?.kind).toBe('malformed');
    expect(problemOf('a[b]=1&a=2')?.kind).toBe('malformed');
    expect(problemOf('a[b]=1&a[]=2')?.kind).toBe('malformed');
    expect(problemOf('a[]=1&a[b]=2')?.kind).toBe('malformed');
  });

  test('a repeated key is refused rather than one of its values silently winning', () => {
    expect(problemOf('amount=1&amount=2')).toEqual({ kind: 'malformed', key: 'amount', reason: 'amount is given more than once.' });
    expect(problemOf('a[0]=1&a[0]=2')?.kind).toBe('malformed');
  });

  test('the JSON limits hold: depth, members of one object or list, keys in all', () => {
    const limits = { maxDepth: 3, maxItems: 3, maxTotal: 5 };
    expect(problemOf('a[b][c]=1', limits)).toBeNull();
    expect(problemOf('a[b][c][d]=1', limits)).toEqual({ kind: 'depth', limit: 3 });
    expect(problemOf('m[a]=1&m[b]=2&m[c]=3&m[d]=4', limits)).toEqual({ kind: 'items', limit: 3 });
    expect(problemOf('l[]=1&l[]=2&l[]=3&l[]=4', limits)).toEqual({ kind: 'items', limit: 3 });
    expect(problemOf('a[]=1&a[]=2&b[]=1&b[]=2&c[]=1&c[]=2', limits)).toEqual({ kind: 'total', limit: 5 });
  });

  test('a huge index is refused, not allocated', () => {
    expect(problemOf('a[999999999]=x')?.kind).toBe('items');
  });

  test('with the default limits a form as deep as JSON allows passes and one deeper does not', () => {
    const key = (n: number) => 'a' + '[b]'.repeat(n - 1);
    expect(problemOf(`${key(32)}=1`)).toBeNull();
    expect(problemOf(`${key(33)}=1`)).toEqual({ kind: 'depth', limit: 32 });
  });
});

describe('splitFormKey', () => {
  test('splits a key into its name and bracket parts', () => {
    expect(splitFormKey('a')).toEqual(['a']);
    expect(splitFormKey('a[b][]')).toEqual(['a', 'b', '']);
    expect(splitFormKey('a[b')).toBeNull();
  });
});

describe('coerceFormValues', () => {
  const schema = t.Object({
    amount: t.Number({ multipleOf: 1 }),
    count: t.Optional(t.Integer()),
    live: t.Optional(t.Boolean()),
    description: t.Optional(t.Union([t.String(), t.Null()])),
    metadata: t.Optional(t.Record(t.String(), t.String())),
    card: t.Optional(t.Object({ exp_month: t.Integer(), number: t.String() })),
    ids: t.Optional(t.Array(t.Integer())),
    code: t.Optional(t.Union([t.Literal('10'), t.Number()])),
  }) as unknown as FormSchema;

  test('numbers and integers from digits, booleans from true/false, by the schema', () => {
    expect(coerceFormValues(schema, { amount: '2000', count: '3', live: 'true', ids: ['1', '2'] })).toEqual({ amount: 2000, count: 3, live: true, ids: [1, 2] });
    // stripe-python 5 sends a Python bool as "True" / "False".
    expect(coerceFormValues(schema, { live: 'True' })).toEqual({ live: true });
    expect(coerceFormValues(schema, { live: 'False' })).toEqual({ live: false });
    expect(coerceFormValues(schema, { live: 'TRUE' })).toEqual({ live: 'TRUE' });
  });

  test('strings the schema wants as strings stay strings, however numeric they look', () => {
    expect(coerceFormValues(schema, { description: '42', metadata: { order: '42' }, card: { exp_month: '12', number: '4242' } })).toEqual({
      description: '42',
      metadata: { order: '42' },
      card: { exp_month: 12, number: '4242' },
    });
  });

  test('a union member that takes the string as it is wins over a number', () => {
    expect(coerceFormValues(schema, { code: '10' })).toEqual({ code: '10' });
    expect(coerceFormValues(schema, { code: '11' })).toEqual({ code: 11 });
  });

  test('what does not convert is left for the validator to refuse by name', () => {
    expect(coerceFormValues(schema, { amount: '20.00x', live: 'yes', extra: '1' })).toEqual({ amount: '20.00x', live: 'yes', extra: '1' });
    expect(coerceFormValues(schema, { amount: '20.5' })).toEqual({ amount: 20.5 });
  });

  test('without a schema the body is unchanged', () => {
    expect(coerceFormValues(undefined, { amount: '1' })).toEqual({ amount: '1' });
  });
});
