import { describe, expect, test } from 'bun:test';
import { createMultipartGuard, MAX_PART_HEADER_BYTES, MAX_PART_HEADER_LINES, multipartBoundary, type MultipartLimits } from './multipart-guard';

/*
 * The streaming multipart guard: exact at each limit whatever the chunking (delimiters and blank lines split across
 * chunks), naming the field and file of a part that is too large, and refusing a body of many small parts or of long
 * or many header lines after reading little more than the part that broke the limit.
 */

async function encode(fd: FormData): Promise<{ bytes: Uint8Array; boundary: string }> {
  const res = new Response(fd);
  const boundary = multipartBoundary(res.headers.get('content-type'));
  if (!boundary) throw new Error('no boundary');
  return { bytes: new Uint8Array(await res.arrayBuffer()), boundary };
}

const enc = (s: string) => new TextEncoder().encode(s);

const LIMIT = 100;
const LIMITS: MultipartLimits = { maxPartBytes: LIMIT, maxParts: 8, maxHeaderBytes: 256, maxHeaderLines: 4 };

/** Feeds `bytes` in chunks of `chunkSize` (or at the given cut points), then ends the body. */
function feed(bytes: Uint8Array, boundary: string, limits: Partial<MultipartLimits> = {}, chunks: number | number[] = 4096) {
  const guard = createMultipartGuard(boundary, { ...LIMITS, ...limits });
  const cuts = typeof chunks === 'number' ? Array.from({ length: Math.ceil(bytes.length / chunks) }, (_, i) => (i + 1) * chunks) : [...chunks, bytes.length];
  let from = 0;
  for (const cut of cuts) {
    const to = Math.min(cut, bytes.length);
    const found = guard.push(bytes.subarray(from, to));
    if (found) return { found, readUpTo: to };
    from = to;
  }
  return { found: guard.finish(), readUpTo: bytes.length };
}

const CHUNK_SIZES = [1, 2, 3, 7, 16, 61, 100, 4096];

function form(fileSizes: number[]) {
  const fd = new FormData();
  fd.append('firstName', 'Ada');
  fileSizes.forEach((n, i) => fd.append('documents', new File([new Uint8Array(n).fill(0x41 + i)], `scan-${i}.png`, { type: 'image/png' })));
  fd.append('lastName', 'Lovelace');
  return fd;
}

/** A body of `n` text fields as a browser sends them (CRLF), or with another line ending. */
function fields(n: number, { boundary = 'b0undary', eol = '\r\n', headers = '' } = {}) {
  let body = '';
  for (let i = 0; i < n; i++) body += `--${boundary}${eol}Content-Disposition: form-data; name="f${i}"${eol}${headers}${eol}x${eol}`;
  return enc(`${body}--${boundary}--${eol}`);
}

describe('part sizes', () => {
  test.each(CHUNK_SIZES)('parts of exactly the limit pass in chunks of %i bytes', async (size) => {
    const { bytes, boundary } = await encode(form([LIMIT, LIMIT, 1]));
    expect(feed(bytes, boundary, {}, size).found).toBeNull();
    const last = new FormData();
    last.append('documents', new File([new Uint8Array(LIMIT)], 'last.png'));
    const alone = await encode(last);
    expect(feed(alone.bytes, alone.boundary, {}, size).found).toBeNull();
  });

  test.each(CHUNK_SIZES)('a part of limit + 1 is reported in chunks of %i bytes, naming field and file', async (size) => {
    const { bytes, boundary } = await encode(form([5, LIMIT + 1, 5]));
    const { found, readUpTo } = feed(bytes, boundary, {}, size);
    expect(found).toEqual({ kind: 'part_too_large', field: 'documents', filename: 'scan-1.png' });
    // Found no later than the end of the large part's delimiter, long before the third file.
    const third = Buffer.from(bytes).indexOf(Buffer.from('scan-2.png'));
    expect(readUpTo).toBeLessThanOrEqual(third + size);
  });

  test('a large text field is reported too (no file name)', async () => {
    const fd = new FormData();
    fd.append('firstName', 'x'.repeat(LIMIT + 1));
    const { bytes, boundary } = await encode(fd);
    expect(feed(bytes, boundary, {}, 7).found).toEqual({ kind: 'part_too_large', field: 'firstName', filename: null });
  });

  test('stops while the large part is still arriving, not at its end', async () => {
    const { bytes, boundary } = await encode(form([LIMIT * 50]));
    const { found, readUpTo } = feed(bytes, boundary, {}, 10);
    expect(found).toMatchObject({ filename: 'scan-0.png' });
    expect(readUpTo).toBeLessThan(LIMIT * 2 + 400);
  });

  test('a preamble or an epilogue is measured like a part', () => {
    const preamble = enc('x'.repeat(LIMIT + 100));
    expect(feed(preamble, 'b', {}, 9).found).toEqual({ kind: 'part_too_large', field: null, filename: null });
    const epilogue = enc(`--b\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--b--\r\n${'y'.repeat(LIMIT + 10)}`);
    expect(feed(epilogue, 'b', {}, 9).found).toEqual({ kind: 'part_too_large', field: null, filename: null });
  });
});

describe('counting parts', () => {
  test.each(CHUNK_SIZES)('exactly the limit passes and one more is refused, in chunks of %i bytes', (size) => {
    expect(feed(fields(LIMITS.maxParts), 'b0undary', {}, size).found).toBeNull();
    expect(feed(fields(LIMITS.maxParts + 1), 'b0undary', {}, size).found).toEqual({ kind: 'too_many_parts', limit: LIMITS.maxParts });
  });

  test('a delimiter split across two chunks at any byte is counted once', () => {
    const boundary = 'b0undary';
    const body = fields(LIMITS.maxParts + 1, { boundary });
    const last = Buffer.from(body).lastIndexOf(Buffer.from(`\r\n--${boundary}\r\n`));
    // Cut the body once inside (or around) the delimiter that opens the part past the limit, and the one closing it.
    for (let cut = last - 2; cut <= last + boundary.length + 6; cut++) {
      expect({ cut, found: feed(body, boundary, {}, [cut]).found }).toEqual({ cut, found: { kind: 'too_many_parts', limit: LIMITS.maxParts } });
      const ok = fields(LIMITS.maxParts, { boundary });
      expect({ cut, found: feed(ok, boundary, {}, [cut, cut + 3]).found }).toEqual({ cut, found: null });
    }
  });

  test('a body of 10,000 small fields is refused after reading about the first parts', () => {
    const body = fields(10_000);
    // The part past the limit is opened by the delimiter before f32; the guard stops before f33's has been read.
    const f33 = Buffer.from(body).indexOf(Buffer.from('name="f33"'));
    for (const size of [64, 4096, 64 * 1024, body.length]) {
      const { found, readUpTo } = feed(body, 'b0undary', { maxParts: 32 }, size);
      expect(found).toEqual({ kind: 'too_many_parts', limit: 32 });
      expect(readUpTo).toBeLessThanOrEqual(Math.max(size, f33 + size));
    }
  });

  test('line endings: bare LF and CRLF delimiters count alike, as does a body starting with its delimiter', () => {
    for (const eol of ['\r\n', '\n']) {
      expect(feed(fields(LIMITS.maxParts, { eol }), 'b0undary', {}, 5).found).toBeNull();
      expect(feed(fields(LIMITS.maxParts + 1, { eol }), 'b0undary', {}, 5).found).toMatchObject({ kind: 'too_many_parts' });
    }
    // A boundary inside content without a line break before it still opens a part for Bun's parser, so it counts.
    const glued = enc(`--b\r\nContent-Disposition: form-data; name="a"\r\n\r\n${'x--b\r\n\r\n'.repeat(LIMITS.maxParts)}\r\n--b--\r\n`);
    expect(feed(glued, 'b', {}, 7).found).toMatchObject({ kind: 'too_many_parts' });
  });

  test('a preamble and an epilogue are not parts, but parts after a closing delimiter are counted', () => {
    const framed = (n: number, epilogue: string) => {
      const body = Buffer.from(fields(n, { boundary: 'b' })).toString();
      return enc(`This is a preamble.\r\nIt has -b and --c in it.\r\n${body}${epilogue}`);
    };
    expect(feed(framed(LIMITS.maxParts, 'An epilogue.\r\n'), 'b', {}, 3).found).toBeNull();
    // Bun keeps parsing parts after a closing delimiter in the middle of a body: so does the count.
    const more = Buffer.from(fields(1, { boundary: 'b' })).toString();
    expect(feed(framed(LIMITS.maxParts, more), 'b', {}, 3).found).toMatchObject({ kind: 'too_many_parts' });
    expect(feed(framed(LIMITS.maxParts - 1, more), 'b', {}, 3).found).toBeNull();
  });
});

describe('the end of the body', () => {
  // The last bytes (a delimiter's length and 2) are held back until the next chunk or the end: these limits are only
  // passed in them.
  const boundary = 'z'.repeat(70);

  test('a preamble-only body of limit + 1 bytes is refused when it ends', () => {
    expect(feed(enc('y'.repeat(LIMIT)), boundary).found).toBeNull();
    expect(feed(enc('y'.repeat(LIMIT + 1)), boundary).found).toEqual({ kind: 'part_too_large', field: null, filename: null });
  });

  test('a part opened by the very last bytes is counted', () => {
    const unclosed = (n: number) => Buffer.from(fields(n, { boundary })).toString().replace(`--${boundary}--\r\n`, '');
    expect(feed(enc(`${unclosed(LIMITS.maxParts)}--${boundary}--`), boundary).found).toBeNull();
    expect(feed(enc(`${unclosed(LIMITS.maxParts)}--${boundary}\r\n`), boundary).found).toMatchObject({ kind: 'too_many_parts' });
    expect(feed(enc(`${unclosed(LIMITS.maxParts)}--${boundary}`), boundary).found).toMatchObject({ kind: 'too_many_parts' });
  });
});

describe('part headers', () => {
  const partWithHeaders = (lines: string[], content = 'x') =>
    enc(`--b\r\nContent-Disposition: form-data; name="a"\r\n${lines.map((l) => `${l}\r\n`).join('')}\r\n${content}\r\n--b--\r\n`);

  test.each(CHUNK_SIZES)('exactly the limit of header lines passes and one more is refused, in chunks of %i bytes', (size) => {
    const extra = (n: number) => Array.from({ length: n }, (_, i) => `X-${i}: y`);
    expect(feed(partWithHeaders(extra(LIMITS.maxHeaderLines - 1)), 'b', {}, size).found).toBeNull();
    expect(feed(partWithHeaders(extra(LIMITS.maxHeaderLines)), 'b', {}, size).found).toEqual({
      kind: 'too_many_header_lines',
      limit: LIMITS.maxHeaderLines,
    });
  });

  test('10,000 header lines in one part are refused after reading a few of them', () => {
    const body = partWithHeaders(Array.from({ length: 10_000 }, () => 'a:'));
    for (const size of [1, 64, body.length]) {
      const { found, readUpTo } = feed(body, 'b', { maxHeaderLines: MAX_PART_HEADER_LINES }, size);
      expect(found).toEqual({ kind: 'too_many_header_lines', limit: MAX_PART_HEADER_LINES });
      expect(readUpTo).toBeLessThanOrEqual(200 + size);
    }
    // Bare line feeds count as lines too.
    const bare = enc(`--b\r\n${'a:\n'.repeat(10_000)}\r\n\r\nx\r\n--b--\r\n`);
    expect(feed(bare, 'b', {}, 100).found).toMatchObject({ kind: 'too_many_header_lines' });
  });

  test.each(CHUNK_SIZES)('a header block of exactly the limit passes and one byte more is refused, in chunks of %i bytes', (size) => {
    // The block is the bytes after the delimiter up to the blank line: CRLF, the disposition line, CRLF, and X: …
    const fixed = '\r\nContent-Disposition: form-data; name="a"\r\nX: '.length;
    const pad = (n: number) => [`X: ${'y'.repeat(n - fixed)}`];
    expect(feed(partWithHeaders(pad(LIMITS.maxHeaderBytes)), 'b', {}, size).found).toBeNull();
    expect(feed(partWithHeaders(pad(LIMITS.maxHeaderBytes + 1)), 'b', {}, size).found).toEqual({
      kind: 'header_too_large',
      limit: LIMITS.maxHeaderBytes,
    });
  });

  test('a header block of 100 KB, or one that never ends, is refused soon after the limit', () => {
    const huge = partWithHeaders([`X: ${'y'.repeat(100 * 1024)}`]);
    for (const size of [1, 1000, huge.length]) {
      const { found, readUpTo } = feed(huge, 'b', { maxHeaderBytes: MAX_PART_HEADER_BYTES }, size);
      expect(found).toEqual({ kind: 'header_too_large', limit: MAX_PART_HEADER_BYTES });
      expect(readUpTo).toBeLessThanOrEqual(MAX_PART_HEADER_BYTES + 100 + size);
    }
    const endless = enc(`--b\r\nContent-Disposition: form-data; name="a"\r\nX: ${'y'.repeat(MAX_PART_HEADER_BYTES)}`);
    expect(feed(endless, 'b', { maxHeaderBytes: MAX_PART_HEADER_BYTES }, 999).found).toMatchObject({ kind: 'header_too_large' });
  });

  test('the blank line ending the headers is found when split across chunks at any byte', () => {
    const body = partWithHeaders([], 'y'.repeat(LIMIT));
    const blank = Buffer.from(body).indexOf(Buffer.from('\r\n\r\n'));
    for (let cut = blank - 1; cut <= blank + 5; cut++) {
      expect({ cut, found: feed(body, 'b', {}, [cut]).found }).toEqual({ cut, found: null });
      const over = partWithHeaders([], 'y'.repeat(LIMIT + 1));
      expect({ cut, found: feed(over, 'b', {}, [cut]).found }).toEqual({ cut, found: { kind: 'part_too_large', field: 'a', filename: null } });
    }
  });
});

test('multipartBoundary reads quoted and bare boundaries, only for multipart/form-data', () => {
  expect(multipartBoundary('multipart/form-data; boundary=abc')).toBe('abc');
  expect(multipartBoundary('Multipart/Form-Data; charset=utf-8; boundary="a b:c"')).toBe('a b:c');
  // Only RFC 2046's boundary characters, no space at either end: the body is parsed by the boundary read here, and
  // these read differently in Bun's parser (which cannot use a ';' in a boundary at all).
  for (const odd of ['"a b;c"', '""', 'a"', 'a\\b', '" a"', '"a "']) expect(multipartBoundary(`multipart/form-data; boundary=${odd}`)).toBeNull();
  expect(multipartBoundary('application/json; boundary=abc')).toBeNull();
  expect(multipartBoundary('multipart/form-data')).toBeNull();
  expect(multipartBoundary(null)).toBeNull();
});
