export type { FileStorage } from './types';
export { createLocalDiskStorage, newStorageKey } from './local-disk';
