/*
 * Watches a multipart/form-data body as it streams in and reports the first limit it breaks, so the upload can be
 * refused (413) after reading little more than the offending bytes, instead of buffering the whole body and handing
 * it to a parser first. It only measures and counts: parsing stays with Response.formData() on the buffered bytes,
 * which runs only on a body this guard let through.
 *
 * What it limits, and why each is safe to count this way:
 * - Parts. Every `--boundary` in the body that is not followed by `--` opens a part, wherever it stands: Bun's parser
 *   starts a part at `--boundary` followed by CRLF even without the CRLF before it, and keeps parsing parts after a
 *   `--boundary--` met in the middle, so this count is never below the number of parts the parser will see (it can
 *   only be above it for a body that repeats its own boundary, which no real client sends).
 * - A part's content (a file of 10 MB at most): a part with at most `maxPartBytes` of content is never reported,
 *   whatever the chunking; one with more is always reported, at the latest when the delimiter after it arrives.
 *   Whatever precedes the first delimiter (the preamble) and follows a closing one (the epilogue) is measured the same.
 * - A part's header block (the bytes after its delimiter up to the blank line, CRLF CRLF): at most `maxHeaderBytes`,
 *   and at most `maxHeaderLines` header lines (every line feed counts, bare ones too), refused as soon as either is
 *   passed, before the blank line has arrived if it never does.
 *
 * Cost: each chunk is searched once for the delimiter (plus the few bytes held back from the chunk before), each
 * header byte is looked at a bounded number of times, and a part's headers are decoded once; nothing is rescanned per
 * part, so a body costs time linear in its bytes, and a refused one stops at the first part past a limit.
 */

/** One part's header block may hold at most this many bytes (a file name of 255 characters needs about 1 KB). */
export const MAX_PART_HEADER_BYTES = 8 * 1024;
/** One part may have at most this many header lines (a form part sends 1 or 2: Content-Disposition, Content-Type). */
export const MAX_PART_HEADER_LINES = 16;

export interface MultipartLimits {
  /** Most content bytes in one part (and in the preamble or epilogue). */
  maxPartBytes: number;
  /** Most parts in the body. */
  maxParts: number;
  maxHeaderBytes: number;
  maxHeaderLines: number;
}

export type MultipartRefusal =
  /** `field` and `filename` come from the part's Content-Disposition, when it was readable. */
  | { kind: 'part_too_large'; field: string | null; filename: string | null }
  | { kind: 'too_many_parts'; limit: number }
  | { kind: 'header_too_large'; limit: number }
  | { kind: 'too_many_header_lines'; limit: number };

interface PartState {
  /** Absolute offset of the first byte after the delimiter (where the header block starts). */
  start: number;
  /** Absolute offset of the first content byte, once the header block's blank line was seen. */
  contentStart: number | null;
  /** The header block's bytes so far (at most maxHeaderBytes + 4 in all), until its blank line. */
  header: Buffer[];
  headerBytes: number;
  /** The header block's last 3 bytes so far, where its blank line may have begun. */
  tail: Buffer;
  /** Line feeds seen in the header block so far, its blank line's two included. */
  headerLineFeeds: number;
  field: string | null;
  filename: string | null;
}

const CRLFCRLF = Buffer.from('\r\n\r\n');
const LF = 0x0a;
const DASH = 0x2d;

/**
 * RFC 2046's boundary characters, not ending with a space. Anything else (a quote, a backslash, a space at either end)
 * is refused: the body is parsed with the boundary read here (formDataType), and a boundary that reads differently
 * in another parser must not decide which delimiters were counted.
 */
const BOUNDARY = /^[0-9A-Za-z'()+_,\-./:=?][0-9A-Za-z'()+_,\-./:=? ]{0,198}[0-9A-Za-z'()+_,\-./:=?]$|^[0-9A-Za-z'()+_,\-./:=?]$/;

/** The boundary parameter of a multipart Content-Type, or null (none, or not one we accept: see BOUNDARY). */
export function multipartBoundary(contentType: string | null): string | null {
  if (!contentType || !/^\s*multipart\/form-data\s*(;|$)/i.test(contentType)) return null;
  const m = /;\s*boundary\s*=\s*(?:"([^"]{1,200})"|([^;\s]{1,200}))/i.exec(contentType);
  const boundary = m ? (m[1] ?? m[2] ?? null) : null;
  return boundary !== null && BOUNDARY.test(boundary) ? boundary : null;
}

/**
 * The Content-Type the body is parsed under: exactly the boundary the guard counted, so that no second reading of the
 * client's header (Bun's, which differs: a parameter inside another's quotes, a space after '=', an empty boundary)
 * can parse parts by a delimiter the guard never looked for.
 */
export const formDataType = (boundary: string) => `multipart/form-data; boundary="${boundary}"`;

/** A parameter (name or filename) of the Content-Disposition in a part's headers, or null. */
export function headerParam(headers: string, name: 'name' | 'filename'): string | null {
  const disposition = /^content-disposition:([^\r\n]*)/im.exec(headers)?.[1];
  if (!disposition) return null;
  const m = new RegExp(`;\\s*${name}\\s*=\\s*(?:"([^"]*)"|([^;\\s]*))`, 'i').exec(disposition);
  return m ? (m[1] ?? m[2] ?? '') : null;
}

/** Line feeds in bytes[from, to), counting no further than `stopAfter` of them. */
function countLineFeeds(bytes: Buffer, from: number, to: number, stopAfter: number): number {
  let n = 0;
  for (let i = bytes.indexOf(LF, from); i >= 0 && i < to && n <= stopAfter; i = bytes.indexOf(LF, i + 1)) n++;
  return n;
}

export function createMultipartGuard(boundary: string, limits: MultipartLimits) {
  const delimiter = Buffer.from(`--${boundary}`);
  // A delimiter and the two bytes after it (which say whether it closes the body) must be seen whole, so this many
  // bytes at the end of each chunk are held back and searched again with the next one.
  const lag = delimiter.length + 2;
  let held = Buffer.alloc(0);
  /** Absolute offset of held[0]: every byte before it has been accounted for. */
  let offset = 0;
  let opened = 0;
  let done = false;

  const contentPart = (start: number): PartState => ({
    start,
    contentStart: start,
    header: [],
    headerBytes: 0,
    tail: Buffer.alloc(0),
    headerLineFeeds: 0,
    field: null,
    filename: null,
  });
  const headedPart = (start: number): PartState => ({ ...contentPart(start), contentStart: null });
  // The preamble is measured like a part without headers.
  let part = contentPart(0);

  /** Takes the header bytes bytes[from, to) of the current part, until its blank line; answers a refusal or null. */
  function feedHeader(bytes: Buffer, from: number, to: number, at: number): MultipartRefusal | null {
    if (part.contentStart !== null || to <= from) return null;
    // Past maxHeaderBytes + 4 bytes without a blank line the block is too large: no need to look further.
    const take = Math.min(to - from, limits.maxHeaderBytes + CRLFCRLF.length - part.headerBytes);
    const slice = bytes.subarray(from, from + take);
    // The blank line may have begun in the last 3 bytes before.
    const seen = Buffer.concat([part.tail, slice]);
    const found = seen.indexOf(CRLFCRLF);
    const end = found < 0 ? take : found - part.tail.length + CRLFCRLF.length;
    part.headerLineFeeds += countLineFeeds(slice, 0, end, limits.maxHeaderLines + 2);
    if (part.headerLineFeeds > limits.maxHeaderLines + 2) return { kind: 'too_many_header_lines', limit: limits.maxHeaderLines };
    part.header.push(Buffer.from(slice.subarray(0, end)));
    part.headerBytes += end;
    if (found < 0) {
      part.tail = Buffer.from(seen.subarray(-3));
      return part.headerBytes >= limits.maxHeaderBytes + CRLFCRLF.length ? { kind: 'header_too_large', limit: limits.maxHeaderBytes } : null;
    }
    // Found within maxHeaderBytes + 4 bytes: the block (without its blank line) is within the limit.
    part.contentStart = at + end;
    const text = new TextDecoder().decode(Buffer.concat(part.header).subarray(0, part.headerBytes - CRLFCRLF.length));
    part.field = headerParam(text, 'name');
    part.filename = headerParam(text, 'filename');
    part.header = [];
    return null;
  }

  /** Content bytes of the current part known to exist when the body up to `upTo` was seen. */
  const contentAtLeast = (upTo: number, pending: number) => (part.contentStart === null ? 0 : upTo - part.contentStart - pending);
  const tooLarge = (): MultipartRefusal => ({ kind: 'part_too_large', field: part.field, filename: part.filename });

  /**
   * Accounts for window[0, end) (window starts at absolute `offset`); a delimiter starting before `end` lies whole in
   * the window with the two bytes after it (except at the end of the body). Answers a refusal, or where it stopped.
   */
  function scan(window: Buffer, end: number): MultipartRefusal | number {
    let pos = 0;
    for (;;) {
      const found = window.indexOf(delimiter, pos);
      const stop = found < 0 || found >= end ? end : found;
      const refused = feedHeader(window, pos, stop, offset + pos);
      if (refused) return refused;
      if (stop === end) return Math.max(pos, end);
      // The part ends here; its content is what precedes the CRLF that belongs to the delimiter.
      if (contentAtLeast(offset + found, 2) > limits.maxPartBytes) return tooLarge();
      const after = found + delimiter.length;
      const closes = window[after] === DASH && window[after + 1] === DASH;
      if (!closes && ++opened > limits.maxParts) return { kind: 'too_many_parts', limit: limits.maxParts };
      // After a closing delimiter comes the epilogue, measured like content; a later delimiter still opens a part.
      part = closes ? contentPart(offset + after) : headedPart(offset + after);
      pos = after;
    }
  }

  function advance(window: Buffer, end: number, final: boolean): MultipartRefusal | null {
    const stopped = scan(window, end);
    if (typeof stopped !== 'number') {
      done = true;
      return stopped;
    }
    held = Buffer.from(window.subarray(stopped));
    offset += stopped;
    // The last bytes may be the CRLF before the next delimiter, which is not content.
    if (contentAtLeast(offset, final ? 0 : 2) > limits.maxPartBytes) {
      done = true;
      return tooLarge();
    }
    return null;
  }

  return {
    /** Takes the next chunk; answers the first limit the body breaks, or null while it keeps to them all. */
    push(chunk: Uint8Array): MultipartRefusal | null {
      if (done) throw new Error('the multipart guard has already refused this body');
      const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      const window = held.length ? Buffer.concat([held, bytes]) : bytes;
      if (window.length <= lag) {
        held = Buffer.from(window);
        return null;
      }
      return advance(window, window.length - lag, false);
    },
    /** The body has ended: accounts for the bytes held back. */
    finish(): MultipartRefusal | null {
      if (done) throw new Error('the multipart guard has already refused this body');
      done = true;
      return advance(held, held.length, true);
    },
  };
}
