import { describe, expect, test } from 'bun:test';
import { t } from 'elysia';
import { describeAccepted } from './schema-words';

describe('describeAccepted: what a field accepts, in words', () => {
  const rows: Array<[string, unknown, string]> = [
    ['an enum', t.UnionEnum(['automatic', 'manual']), 'one of automatic, manual'],
    ['an integer range', t.Number({ multipleOf: 1, minimum: 50, maximum: 99_999_999 }), 'an integer from 50 to 99999999'],
    ['an integer floor', t.Number({ multipleOf: 1, minimum: 1 }), 'an integer of at least 1'],
    ['an integer ceiling', t.Integer({ maximum: 9 }), 'an integer of at most 9'],
    ['an exclusive floor', t.Number({ exclusiveMinimum: 0 }), 'a number greater than 0'],
    ['a query number (numeric string branch left out)', t.Numeric({ minimum: 1, maximum: 100 }), 'a number from 1 to 100'],
    ['a bounded string', t.String({ maxLength: 64 }), 'a string of at most 64 characters'],
    ['a string of fixed length', t.String({ minLength: 4, maxLength: 4 }), 'a string of exactly 4 characters'],
    ['a string or null', t.Union([t.String({ maxLength: 1000 }), t.Null()]), 'a string of at most 1000 characters or null'],
    ['a literal', t.Literal('card'), '"card"'],
    ['a boolean', t.Boolean(), 'true or false'],
    ['a record of strings', t.Record(t.String(), t.String({ maxLength: 500 })), 'an object whose values are strings of at most 500 characters'],
    ['a list of an enum', t.Array(t.UnionEnum(['a', 'b']), { minItems: 1, maxItems: 50 }), 'a list of 1 to 50 items, each one of a, b'],
    ['an object with fields', t.Object({ number: t.String(), cvc: t.String(), exp_month: t.Integer() }), 'an object with number, cvc and exp_month'],
    ['an email', t.String({ format: 'email' }), 'an email address'],
    ['nothing known', undefined, 'a valid value'],
  ];
  for (const [name, schema, words] of rows) {
    test(`${name}: ${words}`, () => {
      const said = describeAccepted(schema as never);
      expect(said).toBe(words);
      expect(said).not.toContain('Expected');
    });
  }
});
