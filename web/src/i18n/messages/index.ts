import type * as admin from './admin';
import type * as analytics from './analytics';
import type * as auth from './auth';
import type * as bcards from './bcards';
import type * as checkout from './checkout';
import * as common from './common';
import type * as dashboard from './dashboard';
import type * as demos from './demos';
import type * as extension from './extension';
import type * as fundingSources from './funding-sources';
import type * as investors from './investors';
import type * as kyc from './kyc';
import * as landing from './landing';
import type * as legal from './legal';
import type * as merchantOperations from './merchant-operations';
import type * as merchants from './merchants';
import type * as notifications from './notifications';
import type * as passwords from './passwords';
import type * as passwordReset from './password-reset';
import type * as emailOutbox from './email-outbox';
import type * as emailChange from './email-change';
import type * as plans from './plans';
import type * as paymentDemo from './payment-demo';
import type * as profile from './profile';
import type * as receivables from './receivables';
import type * as settings from './settings';
import type * as signInLink from './sign-in-link';
import type * as split from './split';

/*
 * The catalogue: one file per area, each exporting `en` (as const) and `ar: Record<keyof typeof en, string>`.
 * Only common and landing travel in the entry chunk (what `/`, `/ar`, the sign-in guard, sign-out and 404 show);
 * every other area's texts are registered by its area module in web/src/app/areas/ when that chunk loads
 * (`defineMessages`, web/src/i18n/index.tsx). The other imports here are type-only, so `MessageKey` still names
 * every key while no runtime text of those areas lands in the entry. Adding an area: create messages/<area>.ts,
 * add it to `AreaCatalogue` below and to the area module that renders it.
 */
export const entryCatalogues = { common, landing };

type AreaCatalogue =
  | typeof common
  | typeof auth
  | typeof passwordReset
  | typeof emailOutbox
  | typeof emailChange
  | typeof landing
  | typeof legal
  | typeof dashboard
  | typeof analytics
  | typeof fundingSources
  | typeof bcards
  | typeof profile
  | typeof settings
  | typeof merchants
  | typeof merchantOperations
  | typeof checkout
  | typeof admin
  | typeof kyc
  | typeof split
  | typeof demos
  | typeof paymentDemo
  | typeof passwords
  | typeof plans
  | typeof investors
  | typeof extension
  | typeof notifications
  | typeof receivables
  | typeof signInLink;

/** One area's catalogue module, as `import * as area from './messages/<area>'` gives it. */
export interface Catalogue {
  en: Readonly<Record<string, string>>;
  ar: Readonly<Record<string, string>>;
}

export type MessageKey = AreaCatalogue extends infer C ? (C extends { en: infer E } ? keyof E & string : never) : never;
