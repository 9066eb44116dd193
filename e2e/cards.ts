/** The card numbers and CVVs the browser tests type; scripts/scan-card-data.ts looks for them afterwards. */
export const E2E_CARD_NUMBERS = ['4242424242424242', '4000002760003184'];
/** Distinctive CVVs, so finding one at rest means it was stored, not a coincidence. */
export const E2E_CVVS = ['917', '4083'];
export const E2E_CVV = '917';
