import { useCallback } from 'react';
import { translate, type Lang } from '../../../i18n';
import type { Translate } from '../pricing-format';

/**
 * The landing routes fix their language (`/` English, `/ar` Arabic), so the page translates with its own `lang`
 * rather than the context's: the first paint is already right while the context catches up in an effect.
 */
export function usePageT(lang: Lang): Translate {
  return useCallback<Translate>((key, vars) => translate(lang, key, vars), [lang]);
}
