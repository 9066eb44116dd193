import { headerParam } from './multipart-guard';

/*
 * The Content-Type each file part of a multipart body declares. Bun's FormData parser does not keep it: it gives a
 * File the type its name's extension suggests, so a part named scan.pdf sent as image/png would read as a PDF.
 * The declared type is what a client claims about the file, and KYC refuses a claim its content contradicts.
 */

const CRLF = Buffer.from('\r\n');
const CRLFCRLF = Buffer.from('\r\n\r\n');

export interface PartHeader {
  field: string | null;
  /** The part's Content-Type without parameters, lower case; '' when it has none. */
  contentType: string;
}

/**
 * The header of every part of a complete multipart/form-data body, in order. Delimiters are `--boundary` at the very
 * start or after a CRLF (RFC 7578), so boundary-like bytes inside a part's content are not mistaken for one.
 */
export function multipartPartHeaders(body: Uint8Array, boundary: string, maxParts = Number.POSITIVE_INFINITY): PartHeader[] {
  const buf = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const dash = Buffer.from(`--${boundary}`);
  const delimiter = Buffer.concat([CRLF, dash]);
  const parts: PartHeader[] = [];
  let at = buf.subarray(0, dash.length).equals(dash) ? 0 : buf.indexOf(delimiter);
  if (at > 0) at += CRLF.length;
  // Stops after maxParts: the caller refuses a body with more, and need not pay to scan the rest.
  while (at >= 0 && parts.length < maxParts) {
    const afterDash = at + dash.length;
    // The closing delimiter ends the body.
    if (buf[afterDash] === 0x2d && buf[afterDash + 1] === 0x2d) break;
    const headersEnd = buf.indexOf(CRLFCRLF, afterDash);
    if (headersEnd < 0) break;
    const headers = buf.subarray(afterDash, headersEnd).toString('utf8');
    const type = /^content-type:([^\r\n]*)/im.exec(headers)?.[1] ?? '';
    parts.push({ field: headerParam(headers, 'name'), contentType: (type.split(';')[0] ?? '').trim().toLowerCase() });
    const next = buf.indexOf(delimiter, headersEnd + CRLFCRLF.length);
    at = next < 0 ? -1 : next + CRLF.length;
  }
  return parts;
}
