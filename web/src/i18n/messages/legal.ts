export const en = {} as const;

export const ar: Record<keyof typeof en, string> = {};
