/**
 * The countries a consumer can choose, for the profile's country (Settings) and the address's country (profile
 * dialog) alike: ISO 3166-1 alpha-2 codes, stored upper-case. One list, so both fields offer the same values and
 * the API accepts exactly these (issue 16). The web names them from its catalogue (settings.country.<code>).
 */
export const COUNTRY_CODES = [
  'US', 'CA', 'GB', 'IE', 'DE', 'FR', 'ES', 'IT', 'NL', 'AU', 'AE', 'SA', 'QA', 'KW', 'BH', 'OM', 'EG', 'JO', 'LB', 'MA',
  'IN', 'SG', 'JP', 'MX', 'BR',
] as const;

export type CountryCode = (typeof COUNTRY_CODES)[number];

const KNOWN: ReadonlySet<string> = new Set(COUNTRY_CODES);

/** A code from the list, whatever its case ("gb" is GB); null otherwise ("UK", "USA", "ZZ"). */
export function countryCode(value: string): CountryCode | null {
  const up = value.trim().toUpperCase();
  return KNOWN.has(up) ? (up as CountryCode) : null;
}
