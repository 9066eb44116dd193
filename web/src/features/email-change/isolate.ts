/** An address inside a sentence of either language, kept left to right (Unicode LRI … PDI). */
export const isolate = (s: string) => `\u2066${s}\u2069`;
