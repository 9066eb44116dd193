/// <reference types="chrome" />
/*
 * The extension's globals. `chrome` comes from @types/chrome (root tsconfig's `types` lists only bun-types, so the
 * reference is here). BPAY_DEFAULT_ORIGIN is replaced by build.ts (Bun.build `define`) with the origin baked from
 * BPAY_PUBLIC_URL; outside a build (unit tests) it is not defined and lib/config.ts falls back to localhost:3000.
 */
declare const BPAY_DEFAULT_ORIGIN: string | undefined;
