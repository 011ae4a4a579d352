const MASK = '••••';

/**
 * What replies may show of a key: the last 4 characters. Keys shorter than 8 characters show only
 * the mask, since 4 characters would be half of the key.
 */
export function maskKey(apiKey: string): string {
  if (typeof apiKey !== 'string' || apiKey.length < 8) return MASK;
  return `${MASK}${apiKey.slice(-4)}`;
}
