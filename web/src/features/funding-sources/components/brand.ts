import type { MessageKey } from '../../../i18n';
import type { CardBrand } from '../api';

export const brandLabel: Record<CardBrand, MessageKey> = {
  visa: 'fundingSources.brand.visa',
  mastercard: 'fundingSources.brand.mastercard',
  amex: 'fundingSources.brand.amex',
  unknown: 'fundingSources.brand.unknown',
};

/** The card face's colours by brand. */
export const brandGradient: Record<CardBrand, string> = {
  visa: 'from-blue-600 to-indigo-700',
  mastercard: 'from-orange-500 to-red-600',
  amex: 'from-sky-500 to-cyan-700',
  unknown: 'from-slate-500 to-slate-700',
};
