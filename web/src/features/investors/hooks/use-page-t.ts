import { useCallback } from 'react';
import { translate, type Lang, type MessageKey, type Vars } from '../../../i18n';

export type Translate = (key: MessageKey, vars?: Vars) => string;

/**
 * Each investor route fixes its language (/investors English, /investors-ar Arabic): the page translates with its
 * own `lang`, not the context's, so the first paint is right while the context catches up in an effect.
 */
export function usePageT(lang: Lang): Translate {
  return useCallback<Translate>((key, vars) => translate(lang, key, vars), [lang]);
}
