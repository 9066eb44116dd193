import { useMemo } from 'react';
import { COUNTRY_CODES } from '../../../db/countries';
import { useLanguage } from '../i18n';

/*
 * The one Country list (issue 16): Settings' country and the profile address's country offer the same values, stored
 * the same way (ISO 3166-1 alpha-2, upper-case), and the API accepts exactly these (db/countries.ts). Names come
 * from the settings catalogue (settings.country.<code>), which the dashboard area registers.
 */

export { COUNTRY_CODES };

export interface CountryOption {
  code: string;
  label: string;
}

/**
 * The countries sorted by name in the reader's language; with `none`, "Not set" ('') first. A saved code outside the
 * list (stored before the list was enforced) stays selectable under its code, so opening a form never changes it.
 */
export function useCountryOptions(current: string, { none }: { none: boolean }): CountryOption[] {
  const { lang, t } = useLanguage();
  return useMemo(() => {
    const collator = new Intl.Collator(lang);
    const list = COUNTRY_CODES.map((code) => ({ code: code as string, label: t(`settings.country.${code}`) }));
    list.sort((a, b) => collator.compare(a.label, b.label));
    const all = none ? [{ code: '', label: t('settings.country.none') }, ...list] : list;
    if (current && !all.some((o) => o.code === current)) all.push({ code: current, label: current });
    return all;
  }, [lang, t, current, none]);
}
