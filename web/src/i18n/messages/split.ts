/** The split texts (issue 12). Every catalogue file exports `en` and an `ar` with exactly the same keys. */
export const en = {
  'split.placeholder': '',
} as const;

export const ar: Record<keyof typeof en, string> = {
  'split.placeholder': '',
};
