import * as admin from './admin';
import * as auth from './auth';
import * as bcards from './bcards';
import * as checkout from './checkout';
import * as common from './common';
import * as dashboard from './dashboard';
import * as fundingSources from './funding-sources';
import * as kyc from './kyc';
import * as landing from './landing';
import * as legal from './legal';
import * as merchants from './merchants';
import * as profile from './profile';
import * as settings from './settings';
import * as split from './split';
import * as demos from './demos';
import * as paymentDemo from './payment-demo';
import * as investors from './investors';

/*
 * The whole catalogue: one file per area, merged here. Adding an area: create messages/<area>.ts exporting
 * `en` (as const) and `ar: Record<keyof typeof en, string>`, then spread both below.
 */
export const messages = {
  en: {
    ...common.en,
    ...auth.en,
    ...landing.en,
    ...legal.en,
    ...dashboard.en,
    ...fundingSources.en,
    ...bcards.en,
    ...profile.en,
    ...settings.en,
    ...merchants.en,
    ...checkout.en,
    ...admin.en,
    ...kyc.en,
    ...split.en,
    ...demos.en,
    ...paymentDemo.en,
    ...investors.en,
  },
  ar: {
    ...common.ar,
    ...auth.ar,
    ...landing.ar,
    ...legal.ar,
    ...dashboard.ar,
    ...fundingSources.ar,
    ...bcards.ar,
    ...profile.ar,
    ...settings.ar,
    ...merchants.ar,
    ...checkout.ar,
    ...admin.ar,
    ...kyc.ar,
    ...split.ar,
    ...demos.ar,
    ...paymentDemo.ar,
    ...investors.ar,
  },
};

export type MessageKey = keyof typeof messages.en;
