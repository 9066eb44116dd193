import { describe, expect, test } from 'bun:test';
import { createPartSizeGuard, MAX_PART_HEADER_BYTES, multipartBoundary } from './part-size';

/*
 * The streaming part-size guard: exact at the limit whatever the chunking (delimiters split across chunks), and
 * naming the field and file of the part that is too large.
 */

async function encode(fd: FormData): Promise<{ bytes: Uint8Array; boundary: string }> {
  const res = new Response(fd);
  const boundary = multipartBoundary(res.headers.get('content-type'));
  if (!boundary) throw new Error('no boundary');
  return { bytes: new Uint8Array(await res.arrayBuffer()), boundary };
}

function feed(bytes: Uint8Array, boundary: string, limit: number, chunkSize: number) {
  const guard = createPartSizeGuard(boundary, limit);
  for (let i = 0; i < bytes.length; i += chunkSize) {
    const found = guard.push(bytes.subarray(i, i + chunkSize));
    if (found) return { found, readUpTo: Math.min(bytes.length, i + chunkSize) };
  }
  return { found: null, readUpTo: bytes.length };
}

const LIMIT = 100;
const CHUNK_SIZES = [1, 2, 3, 7, 16, 61, 100, 4096];

function form(fileSizes: number[]) {
  const fd = new FormData();
  fd.append('firstName', 'Ada');
  fileSizes.forEach((n, i) => fd.append('documents', new File([new Uint8Array(n).fill(0x41 + i)], `scan-${i}.png`, { type: 'image/png' })));
  fd.append('lastName', 'Lovelace');
  return fd;
}

describe('createPartSizeGuard', () => {
  test.each(CHUNK_SIZES)('parts of exactly the limit pass in chunks of %i bytes', async (size) => {
    const { bytes, boundary } = await encode(form([LIMIT, LIMIT, 1]));
    expect(feed(bytes, boundary, LIMIT, size).found).toBeNull();
    const last = new FormData();
    last.append('documents', new File([new Uint8Array(LIMIT)], 'last.png'));
    const alone = await encode(last);
    expect(feed(alone.bytes, alone.boundary, LIMIT, size).found).toBeNull();
  });

  test.each(CHUNK_SIZES)('a part of limit + 1 is reported in chunks of %i bytes, naming field and file', async (size) => {
    const { bytes, boundary } = await encode(form([5, LIMIT + 1, 5]));
    const { found, readUpTo } = feed(bytes, boundary, LIMIT, size);
    expect(found).toEqual({ field: 'documents', filename: 'scan-1.png' });
    // Found no later than the end of the large part's delimiter, long before the third file.
    const third = Buffer.from(bytes).indexOf(Buffer.from('scan-2.png'));
    expect(readUpTo).toBeLessThanOrEqual(third + size);
  });

  test('a large text field is reported too (no file name)', async () => {
    const fd = new FormData();
    fd.append('firstName', 'x'.repeat(LIMIT + 1));
    const { bytes, boundary } = await encode(fd);
    expect(feed(bytes, boundary, LIMIT, 7).found).toEqual({ field: 'firstName', filename: null });
  });

  test('stops while the large part is still arriving, not at its end', async () => {
    const { bytes, boundary } = await encode(form([LIMIT * 50]));
    const { found, readUpTo } = feed(bytes, boundary, LIMIT, 10);
    expect(found?.filename).toBe('scan-0.png');
    expect(readUpTo).toBeLessThan(LIMIT * 2 + 400);
  });

  test('a preamble or headers that never end count as content', () => {
    const preamble = new TextEncoder().encode('x'.repeat(LIMIT + 100));
    expect(feed(preamble, 'b', LIMIT, 9).found).toEqual({ field: null, filename: null });
    const endless = new TextEncoder().encode(`--b\r\nContent-Disposition: form-data; name="a"\r\nX: ${'y'.repeat(MAX_PART_HEADER_BYTES + LIMIT + 50)}`);
    expect(feed(endless, 'b', LIMIT, 1000).found).not.toBeNull();
  });

  test('multipartBoundary reads quoted and bare boundaries, only for multipart/form-data', () => {
    expect(multipartBoundary('multipart/form-data; boundary=abc')).toBe('abc');
    expect(multipartBoundary('Multipart/Form-Data; charset=utf-8; boundary="a b;c"')).toBe('a b;c');
    expect(multipartBoundary('application/json; boundary=abc')).toBeNull();
    expect(multipartBoundary('multipart/form-data')).toBeNull();
    expect(multipartBoundary(null)).toBeNull();
  });
});
