import type { Lang, MessageKey } from '../../i18n';

/**
 * What one public page (the investor pages, the extension pages) puts into the shared frame. Texts are keys in the
 * page's own catalogue, so each area keeps its messages; the frame itself names only `common` keys.
 */
export interface PublicPageFrame {
  /** Names the frame's ids and test ids: `<name>-mobile-menu`, `<name>-menu-toggle`, `<name>-footer-legal`. */
  name: string;
  /** This page in `lang`: where the language switch goes. */
  pagePath(lang: Lang): string;
  /** The header's routes after Home. */
  links: ReadonlyArray<{ label: MessageKey; href: string }>;
  texts: {
    skipToContent: MessageKey;
    nav: {
      label: MessageKey;
      mobileLabel: MessageKey;
      home: MessageKey;
      homeAria: MessageKey;
      signIn: MessageKey;
      /** Without it the header offers Sign In alone. */
      startFree?: MessageKey;
      openMenu: MessageKey;
      closeMenu: MessageKey;
    };
    footer: {
      tagline: MessageKey;
      /** A small print line under the tagline, when the page needs one. */
      disclosure?: MessageKey;
      legal: MessageKey;
      terms: MessageKey;
      privacy: MessageKey;
      disclaimers: MessageKey;
      copyright: MessageKey;
    };
  };
}

export const homeHref = (lang: Lang) => (lang === 'ar' ? '/ar' : '/');
