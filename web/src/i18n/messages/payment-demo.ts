/** The payment demo texts (issue 12). Every catalogue file exports `en` and an `ar` with exactly the same keys. */
export const en = {
  'paymentDemo.placeholder': '',
} as const;

export const ar: Record<keyof typeof en, string> = {
  'paymentDemo.placeholder': '',
};
