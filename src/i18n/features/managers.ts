/** Catalogue strings of the managers feature, English and Spanish (same keys; the type checks it). */
export const en = {} as const;

export const es: Record<keyof typeof en, string> = {};
