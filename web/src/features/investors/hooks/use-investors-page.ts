import { useEffect } from 'react';
import { useLanguage, type Lang } from '../../../i18n';
import { usePageT } from '../../../i18n';
import { useDocumentTitle } from '../../../lib/document-title';

/**
 * What both investor routes do on arrival, like the landing's /ar: the route's language becomes the context
 * language (so the document's lang and dir follow and the choice is saved), and the tab gets the page's title.
 */
export function useInvestorsPage(lang: Lang): void {
  const { lang: current, setLanguage } = useLanguage();
  const t = usePageT(lang);

  useEffect(() => {
    if (current !== lang) setLanguage(lang);
  }, [lang, current, setLanguage]);

  useDocumentTitle(t('investors.meta.title'));
}
