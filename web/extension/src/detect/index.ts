/** The checkout detector: pure functions over a page, no chrome.* API. The content script imports this. */
export { detectCheckout, THRESHOLD, WEIGHTS, type Detection } from './detect';
export { findAmounts, minorDigits, parseAmount, pickTotal, type Amount, type AmountMatch, type Total } from './amount';
export { classifyControl, findCardFields, type CardControl, type CardFieldKind, type CardFields } from './fields';
