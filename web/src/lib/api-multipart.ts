import type { paths } from '@bpay/sdk/schema';

/*
 * Multipart bodies on the typed client (`api` in ./api). openapi-typescript types a multipart operation's body as an
 * object whose binary parts (`format: binary`) are strings, while the browser sends Files. A caller gives the
 * schema's fields with its file parts as Blobs (`Parts<B>`: every field name and enum value is still checked against
 * the schema), and `multipart()` turns them into the call's `body` and `bodySerializer` options. openapi-fetch sends
 * the FormData as it is and leaves Content-Type, with its boundary, to fetch; the client's middleware adds the
 * cookie and turns a non-OK answer into the usual ApiError (`<status>: <body or status text>`).
 */

/** The multipart body an operation documents (its `multipart/form-data` request body), read from the schema. */
export type MultipartBody<P extends keyof paths, M extends 'post' | 'put' | 'patch' = 'post'> = paths[P] extends {
  [K in M]: { requestBody: { content: { 'multipart/form-data': infer B } } };
}
  ? B
  : never;

/** A part's value as given: the schema's value, or a Blob (a File keeps its name) where the schema says a string. */
type Part<V> = V extends readonly (infer E)[] ? readonly Part<E>[] : V extends string ? V | Blob : V;

/** The schema's multipart body B with its string parts allowed to be files; an array is one entry per item. */
export type Parts<B> = { [K in keyof B]: Part<B[K]> };

/**
 * The FormData for some parts, in their order: an array gives one entry per item (one `documents` entry per file),
 * undefined and null are left out, a File keeps its name, and any other value is sent as its text.
 */
export function formDataOf(parts: object): FormData {
  const form = new FormData();
  const add = (name: string, value: unknown) => {
    if (value === undefined || value === null) return;
    if (value instanceof Blob) form.append(name, value, value instanceof File ? value.name : 'blob');
    else form.append(name, String(value));
  };
  for (const [name, value] of Object.entries(parts)) {
    if (Array.isArray(value)) for (const item of value) add(name, item);
    else add(name, value);
  }
  return form;
}

/**
 * The `body` and `bodySerializer` options of a multipart call: `api.POST(path, multipart<MultipartBody<path>>(parts))`.
 * The typed client knows the body as the schema's B (hence the one cast); only the serializer reads it, and it sends
 * the FormData built from the parts.
 */
export function multipart<B>(parts: Parts<B>): { body: B; bodySerializer: () => FormData } {
  const form = formDataOf(parts);
  return { body: parts as unknown as B, bodySerializer: () => form };
}
