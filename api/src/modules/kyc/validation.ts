import {
  KYC_CONTENT_TYPES,
  KYC_COUNTRIES,
  KYC_DOCUMENT_TYPES,
  KYC_VERIFICATION_TYPES,
  type KycContentType,
} from '@bpay/db/schema';
import { AppError, invalid } from '../../errors';

/*
 * Pure rules of a KYC submission (spec §5): the fields, the applicant's age, and what an uploaded file really is.
 * Kept apart from the service so they can be tested without a database.
 */

export const MAX_FILE_BYTES = 10 * 1024 * 1024;
export const MAX_FILES = 5;
/** The whole multipart body: five full files plus room for the form fields and part headers. */
export const MAX_BODY_BYTES = MAX_FILES * MAX_FILE_BYTES + 64 * 1024;
export const MIN_AGE_YEARS = 18;
/** No applicant was born before 1900: an earlier date is a typing slip (1890 for 1990), refused in words. */
export const EARLIEST_BIRTH_YEAR = 1900;

export interface KycFields {
  verificationType: (typeof KYC_VERIFICATION_TYPES)[number];
  documentType: (typeof KYC_DOCUMENT_TYPES)[number];
  documentCountry: (typeof KYC_COUNTRIES)[number];
  firstName: string;
  lastName: string;
  dateOfBirth: string;
  documentNumber: string | null;
}

const TEXT_FIELDS = [
  'verificationType',
  'documentType',
  'documentCountry',
  'firstName',
  'lastName',
  'dateOfBirth',
  'documentNumber',
] as const;
const ALLOWED_FIELDS = new Set<string>([...TEXT_FIELDS, 'documents']);

function oneOf<T extends string>(field: string, value: string | undefined, allowed: readonly T[]): T {
  if (value === undefined || value === '') throw invalid(field, `${field} is required.`);
  if (!(allowed as readonly string[]).includes(value)) {
    throw invalid(field, `${field} must be one of: ${allowed.join(', ')}.`);
  }
  return value as T;
}

// Control characters (C0, DEL, C1) and the Unicode bidi overrides have no place in a name.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

function personName(field: string, value: string | undefined): string {
  const name = (value ?? '').normalize('NFC').trim().replace(/\s+/g, ' ');
  if (!name) throw invalid(field, `${field} is required.`);
  if (name.length > 100) throw invalid(field, `${field} must be at most 100 characters.`);
  if (CONTROL.test(name)) throw invalid(field, `${field} contains characters that are not allowed.`);
  return name;
}

/** The applicant's age in whole years on `today` (UTC), from a YYYY-MM-DD date of birth. */
export function ageOn(dateOfBirth: { y: number; m: number; d: number }, today: Date): number {
  const y = today.getUTCFullYear();
  const m = today.getUTCMonth() + 1;
  const d = today.getUTCDate();
  const beforeBirthday = m < dateOfBirth.m || (m === dateOfBirth.m && d < dateOfBirth.d);
  return y - dateOfBirth.y - (beforeBirthday ? 1 : 0);
}

/** A real calendar date, not in the future, on which the applicant was born at least 18 years before `now`. */
export function checkDateOfBirth(value: string | undefined, now: Date): string {
  const field = 'dateOfBirth';
  if (!value) throw invalid(field, 'dateOfBirth is required.');
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) throw invalid(field, 'dateOfBirth must be a date in the form YYYY-MM-DD.');
  const dob = { y: Number(m[1]), m: Number(m[2]), d: Number(m[3]) };
  const asDate = new Date(Date.UTC(dob.y, dob.m - 1, dob.d));
  if (asDate.getUTCFullYear() !== dob.y || asDate.getUTCMonth() !== dob.m - 1 || asDate.getUTCDate() !== dob.d) {
    throw invalid(field, 'dateOfBirth is not a valid date.');
  }
  if (dob.y < EARLIEST_BIRTH_YEAR) throw invalid(field, `dateOfBirth must be on or after ${EARLIEST_BIRTH_YEAR}-01-01.`);
  if (asDate.getTime() > now.getTime()) throw invalid(field, 'dateOfBirth cannot be in the future.');
  if (ageOn(dob, now) < MIN_AGE_YEARS) throw invalid(field, 'You must be 18 or older to verify your identity.');
  return value;
}

/**
 * Reads and checks the text fields of the form. Each appears at most once and must be text; a field the
 * endpoint does not know is refused, naming it, as the JSON endpoints do.
 */
export function parseKycFields(form: FormData, now: Date): KycFields {
  for (const key of new Set(form.keys())) {
    if (!ALLOWED_FIELDS.has(key)) throw invalid(key, `${key} is not an allowed field.`);
  }
  const text = (field: (typeof TEXT_FIELDS)[number]): string | undefined => {
    const all = form.getAll(field);
    if (all.length > 1) throw invalid(field, `${field} must be given once.`);
    const v = all[0];
    if (v === undefined) return undefined;
    if (typeof v !== 'string') throw invalid(field, `${field} must be text, not a file.`);
    return v;
  };
  const verificationType = oneOf('verificationType', text('verificationType'), KYC_VERIFICATION_TYPES);
  const documentType = oneOf('documentType', text('documentType'), KYC_DOCUMENT_TYPES);
  const documentCountry = oneOf('documentCountry', text('documentCountry'), KYC_COUNTRIES);
  const firstName = personName('firstName', text('firstName'));
  const lastName = personName('lastName', text('lastName'));
  const dateOfBirth = checkDateOfBirth(text('dateOfBirth'), now);
  const rawNumber = (text('documentNumber') ?? '').trim();
  if (rawNumber && !/^[A-Za-z0-9][A-Za-z0-9 -]{0,49}$/.test(rawNumber)) {
    throw invalid('documentNumber', 'documentNumber must be 1 to 50 letters, digits, spaces or hyphens.');
  }
  return {
    verificationType,
    documentType,
    documentCountry,
    firstName,
    lastName,
    dateOfBirth,
    documentNumber: rawNumber ? rawNumber.toUpperCase() : null,
  };
}

/** The `documents` entries, checked for count and size before any of them is read. */
export function fileEntries(form: FormData): File[] {
  const entries = form.getAll('documents');
  if (entries.length === 0) throw invalid('documents', 'Attach at least one document (JPG, PNG or PDF).');
  if (entries.length > MAX_FILES) throw invalid('documents', `Attach at most ${MAX_FILES} documents.`);
  const files: File[] = [];
  for (const e of entries) {
    if (typeof e === 'string') throw invalid('documents', 'documents must be files.');
    if (e.size === 0) throw invalid('documents', `${sanitiseFileName(e.name)} is empty.`);
    files.push(e);
  }
  return files;
}

/** What a file really is, from its first bytes: JPEG, PNG or PDF; anything else (SVG, HTML, ...) is null. */
export function detectContentType(bytes: Uint8Array): KycContentType | null {
  const starts = (sig: number[]) => sig.length <= bytes.length && sig.every((b, i) => bytes[i] === b);
  if (starts([0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (starts([0x25, 0x50, 0x44, 0x46, 0x2d])) return 'application/pdf';
  return null;
}
export const ACCEPTED_CONTENT_TYPES = KYC_CONTENT_TYPES;

/**
 * A file name fit to store and show: the last path part, without control, quote or other markup characters,
 * at most 100 characters. Never used to build a storage path (keys are random).
 */
export function sanitiseFileName(name: string | undefined): string {
  return cleanFileName(name).slice(0, 100) || 'document';
}

/** sanitiseFileName before it is cut to length (so a long name's extension is still seen). */
function cleanFileName(name: string | undefined): string {
  const base = (name ?? '').split(/[\\/]/).pop() ?? '';
  return base
    .normalize('NFC')
    .replace(/[^\p{L}\p{N} ._()-]/gu, '_')
    .replace(/\s+/g, ' ')
    .replace(/^[.\s]+/, '')
    .trim();
}

/** The extensions each accepted type is known by; the first is the one a stored name gets. */
const EXTENSIONS: Record<KycContentType, readonly string[]> = {
  'image/jpeg': ['jpg', 'jpeg', 'jpe', 'jfif'],
  'image/png': ['png'],
  'application/pdf': ['pdf'],
};
const LABELS: Record<KycContentType, string> = { 'image/jpeg': 'a JPG image', 'image/png': 'a PNG image', 'application/pdf': 'a PDF document' };
/** Other spellings of the accepted types that clients send as a part's Content-Type. */
const DECLARED_ALIASES: Record<string, KycContentType> = {
  'image/jpg': 'image/jpeg',
  'image/pjpeg': 'image/jpeg',
  'image/x-png': 'image/png',
  'application/x-pdf': 'application/pdf',
};
/** Declared types that claim nothing: what browsers and curl send for a file whose type they cannot tell. */
const NEUTRAL_DECLARED = new Set(['', 'application/octet-stream']);

/**
 * The extension of a (sanitised) name: letters and digits after the last dot, with at least one letter, so a date
 * such as "scan 12.05.2024" has none. Trailing dots and spaces are ignored, as Windows ignores them when saving.
 */
function splitExtension(name: string): { base: string; ext: string | null } {
  const trimmed = name.replace(/[.\s]+$/, '');
  const m = /^(.*)\.([\p{L}\p{N}]{1,16})$/u.exec(trimmed);
  if (!m || !/\p{L}/u.test(m[2]!)) return { base: trimmed, ext: null };
  return { base: m[1]!, ext: m[2]!.toLowerCase() };
}

/**
 * The name a document is stored, listed and downloaded under: the user's base name, sanitised, with the extension
 * of the type detected from its content (a matching extension the user gave is replaced by the canonical one).
 * Idempotent, so it also repairs names stored before this rule when they are shown or downloaded.
 */
export function storedFileName(name: string | undefined, contentType: KycContentType): string {
  const ext = EXTENSIONS[contentType][0]!;
  const split = splitExtension(cleanFileName(name));
  // A foreign extension stays part of the base ("x.html" holding a PNG is kept as "x.html.png").
  const keep = split.ext === null || EXTENSIONS[contentType].includes(split.ext) ? split.base : `${split.base}.${split.ext}`;
  const base = keep
    .replace(/[.\s]+$/, '')
    .slice(0, 100 - ext.length - 1)
    .trim();
  return `${base || 'document'}.${ext}`;
}

const unsupportedMedia = (message: string) => new AppError('unsupported_media_type', message, 'documents');

/**
 * What an uploaded file is, and the name to keep it under. The type comes from the content alone (JPEG, PNG or PDF);
 * the name's extension and the part's declared Content-Type, when they say anything, must agree with it. Bytes after
 * the image's end (a PNG or JPEG followed by HTML) are kept as they are: see docs/DECISIONS.md ("KYC uploads").
 * Fails with: unsupported_media_type (415, param documents), naming the file.
 */
export function checkUploadedFile(
  name: string | undefined,
  declaredType: string,
  bytes: Uint8Array,
): { name: string; contentType: KycContentType } {
  const shown = sanitiseFileName(name);
  const contentType = detectContentType(bytes);
  if (!contentType) throw unsupportedMedia(`${shown} is not a JPG, PNG or PDF file.`);
  const { ext } = splitExtension(cleanFileName(name));
  if (ext !== null && !EXTENSIONS[contentType].includes(ext)) {
    throw unsupportedMedia(`${shown} is named as a .${ext} file but its content is ${LABELS[contentType]}.`);
  }
  const declared = (declaredType.split(';')[0] ?? '').trim().toLowerCase();
  if (!NEUTRAL_DECLARED.has(declared) && (DECLARED_ALIASES[declared] ?? declared) !== contentType) {
    const said = /^[a-z0-9.+-]{1,50}\/[a-z0-9.+-]{1,50}$/.test(declared) ? declared : 'another type';
    throw unsupportedMedia(`${shown} was sent as ${said} but its content is ${LABELS[contentType]}.`);
  }
  return { name: storedFileName(name, contentType), contentType };
}

/**
 * The Content-Disposition of a document download: always an attachment (never rendered by the browser in bpay's
 * origin), named with the extension of its detected type, as an ASCII fallback plus the UTF-8 name; it cannot break
 * out of its header.
 */
export function contentDisposition(name: string | undefined, contentType: KycContentType): string {
  const safe = storedFileName(name, contentType);
  const ascii = safe.replace(/[^A-Za-z0-9 ._()-]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(safe)}`;
}
