import { describe, expect, test } from 'bun:test';
import { csvCell, csvDocument } from './csv';

describe('csv', () => {
  test('formula starters are neutralised; commas, quotes and line breaks are quoted', () => {
    for (const lead of ['=', '+', '-', '@', '\t']) expect(csvCell(`${lead}SUM(A1)`)).toBe(`'${lead}SUM(A1)`);
    expect(csvCell('\rSUM(A1)')).toBe(`"'\rSUM(A1)"`);
    expect(csvCell('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('line\nbreak')).toBe('"line\nbreak"');
    expect(csvCell('Pro plan 9.99')).toBe('Pro plan 9.99');
  });

  test('a document ends every line, the last included, with CRLF', () => {
    expect(csvDocument([['id', 'amount'], ['ch_1', '9.99']])).toBe('id,amount\r\nch_1,9.99\r\n');
    expect(csvDocument([['id']])).toBe('id\r\n');
  });
});
