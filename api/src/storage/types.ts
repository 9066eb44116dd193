/**
 * Where uploaded files (identity documents) are kept. Keys are chosen by bpay (random, see newStorageKey), never
 * by the uploader. A backend other than local disk (S3 and the like) implements the same three calls.
 */
export interface FileStorage {
  /** Stores bytes under a new key. Fails if the key already exists. */
  put(key: string, bytes: Uint8Array): Promise<void>;
  /** The bytes stored under key, or null when there are none. */
  get(key: string): Promise<Uint8Array<ArrayBuffer> | null>;
  /** Removes the bytes under key; removing a missing key is not an error. */
  delete(key: string): Promise<void>;
}

/** Keys are 32 lowercase hex characters (128 random bits): no path separators, no dots, nothing guessable. */
export const STORAGE_KEY_PATTERN = /^[a-f0-9]{32}$/;

export function assertStorageKey(key: string): void {
  if (!STORAGE_KEY_PATTERN.test(key)) throw new Error('invalid storage key');
}
