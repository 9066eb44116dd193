/*
 * Watches a multipart/form-data body as it streams in and reports the first part whose content is larger than a
 * limit, so the upload can be refused (413) after reading little more than that part, instead of buffering the
 * whole body first. It only measures: parsing stays with Response.formData() on the buffered bytes.
 *
 * Invariants: a part with at most `maxPartBytes` of content is never reported, whatever the chunking; one with more
 * is always reported, at the latest when its closing delimiter arrives. A delimiter split across chunks is found
 * because the last (delimiter length − 1) bytes of what was seen are searched again with the next chunk.
 * `--boundary` is matched without its leading CRLF, so a body that repeats its own boundary inside a file can only
 * make parts look smaller (never refuses a good upload); the service's size check after parsing still applies.
 */

/** Part headers longer than this are counted as content (no real part has kilobytes of headers). */
export const MAX_PART_HEADER_BYTES = 16 * 1024;

export interface OversizedPart {
  /** The form field name from the part's Content-Disposition, when it was readable. */
  field: string | null;
  /** The file name from the part's Content-Disposition, when it has one. */
  filename: string | null;
}

interface PartState {
  /** Absolute offset of the first byte after the delimiter (where the headers start). */
  start: number;
  /** Absolute offset of the first content byte, once the headers' blank line was seen. */
  contentStart: number | null;
  header: Uint8Array[];
  headerBytes: number;
  field: string | null;
  filename: string | null;
}

const CRLFCRLF = Buffer.from('\r\n\r\n');

/** The boundary parameter of a multipart Content-Type, or null. */
export function multipartBoundary(contentType: string | null): string | null {
  if (!contentType || !/^\s*multipart\/form-data\s*(;|$)/i.test(contentType)) return null;
  const m = /;\s*boundary\s*=\s*(?:"([^"]{1,200})"|([^;\s]{1,200}))/i.exec(contentType);
  return m ? (m[1] ?? m[2] ?? null) : null;
}

/** A parameter (name or filename) of the Content-Disposition in a part's headers, or null. */
export function headerParam(headers: string, name: 'name' | 'filename'): string | null {
  const disposition = /^content-disposition:([^\r\n]*)/im.exec(headers)?.[1];
  if (!disposition) return null;
  const m = new RegExp(`;\\s*${name}\\s*=\\s*(?:"([^"]*)"|([^;\\s]*))`, 'i').exec(disposition);
  return m ? (m[1] ?? m[2] ?? '') : null;
}

export function createPartSizeGuard(boundary: string, maxPartBytes: number) {
  const delimiter = Buffer.from(`--${boundary}`);
  const overlap = delimiter.length - 1;
  let seen = 0;
  let carry = new Uint8Array(0);
  // Whatever precedes the first delimiter (the preamble) is measured like a part without headers.
  let part: PartState = { start: 0, contentStart: 0, header: [], headerBytes: 0, field: null, filename: null };

  const newPart = (start: number): PartState => ({ start, contentStart: null, header: [], headerBytes: 0, field: null, filename: null });

  /** Collects header bytes [from, to) of the current part until its blank line. */
  function feedHeader(bytes: Uint8Array, from: number, to: number): void {
    if (part.contentStart !== null || to <= from) return;
    const take = bytes.subarray(from, Math.min(to, from + (MAX_PART_HEADER_BYTES + 4 - part.headerBytes)));
    part.header.push(take.slice());
    part.headerBytes += take.byteLength;
    const all = Buffer.concat(part.header);
    const end = all.indexOf(CRLFCRLF);
    if (end >= 0) {
      part.contentStart = part.start + end + CRLFCRLF.length;
      const text = new TextDecoder().decode(all.subarray(0, end));
      part.field = headerParam(text, 'name');
      part.filename = headerParam(text, 'filename');
      part.header = [];
    } else if (part.headerBytes >= MAX_PART_HEADER_BYTES) {
      // No end of headers in sight: count the rest as content.
      part.contentStart = part.start + MAX_PART_HEADER_BYTES;
      part.header = [];
    }
  }

  /** Content bytes of the current part known to exist when `upTo` bytes of the body were seen. */
  const contentAtLeast = (upTo: number, pending: number) => (part.contentStart === null ? 0 : upTo - part.contentStart - pending);

  const report = (): OversizedPart => ({ field: part.field, filename: part.filename });

  return {
    /** Takes the next chunk; answers the part that is too large, or null while every part is within the limit. */
    push(chunk: Uint8Array): OversizedPart | null {
      const window = Buffer.concat([carry, chunk]);
      const base = seen - carry.length;
      const chunkStart = seen;
      let pos = chunkStart;
      // Every match holds at least one byte of `chunk` (carry is shorter than the delimiter), so none repeats.
      for (let i = window.indexOf(delimiter); i >= 0; i = window.indexOf(delimiter, i + delimiter.length)) {
        const at = base + i;
        if (at > pos) feedHeader(chunk, pos - chunkStart, at - chunkStart);
        // The part ends here; its content is what precedes the CRLF that belongs to the delimiter.
        if (contentAtLeast(at, 2) > maxPartBytes) return report();
        part = newPart(at + delimiter.length);
        pos = Math.max(pos, at + delimiter.length);
      }
      const end = chunkStart + chunk.byteLength;
      if (end > pos) feedHeader(chunk, pos - chunkStart, chunk.byteLength);
      seen = end;
      carry = window.subarray(Math.max(0, window.length - overlap)).slice();
      // The last bytes may be the CRLF and the start of the next delimiter, which are not content.
      if (contentAtLeast(seen, 2 + overlap) > maxPartBytes) return report();
      return null;
    },
  };
}
