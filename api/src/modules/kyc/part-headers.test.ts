import { describe, expect, test } from 'bun:test';
import { multipartPartHeaders } from './part-headers';

const enc = (s: string) => new TextEncoder().encode(s);

describe('multipartPartHeaders', () => {
  test("each part's field and declared type, in order, even when Bun's own parser would guess from the name", async () => {
    const fd = new FormData();
    fd.append('firstName', 'Ada');
    fd.append('documents', new File([enc('%PDF-1.7')], 'scan.pdf', { type: 'image/png' }));
    fd.append('documents', new File([enc('x')], 'a.bin'));
    const res = new Response(fd);
    const boundary = /boundary=(.+)$/.exec(res.headers.get('content-type')!)![1]!;
    const body = new Uint8Array(await res.arrayBuffer());
    expect(multipartPartHeaders(body, boundary)).toEqual([
      { field: 'firstName', contentType: '' },
      { field: 'documents', contentType: 'image/png' },
      { field: 'documents', contentType: 'application/octet-stream' },
    ]);
  });

  test('boundary-like bytes inside content are not a delimiter; parameters are dropped; a preamble is skipped', () => {
    const body = enc(
      'preamble\r\n--b\r\nContent-Disposition: form-data; name="documents"; filename="x.png"\r\nContent-Type: IMAGE/PNG; q=1\r\n\r\n' +
        'abc--b\r\nContent-Disposition: form-data; name="evil"\r\n\r\nstill content\r\n' +
        '--b\r\nContent-Disposition: form-data; name=documents; filename="y.pdf"\r\n\r\n%PDF-\r\n--b--\r\n',
    );
    expect(multipartPartHeaders(body, 'b')).toEqual([
      { field: 'documents', contentType: 'image/png' },
      { field: 'documents', contentType: '' },
    ]);
  });
});
