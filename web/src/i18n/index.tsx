import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { readSetting, writeSetting } from '../lib/storage';
import { entryCatalogues, type Catalogue, type MessageKey } from './messages';

export type Lang = 'en' | 'ar';
export const LANGUAGE_KEY = 'bpay-language';

/** Spec §5: a saved language counts only if it is en or ar; otherwise Arabic for /ar, /ar/..., or ...-ar paths. */
export function detectLanguage(path: string, saved: string | null): Lang {
  if (saved === 'en' || saved === 'ar') return saved;
  const p = path.toLowerCase();
  return p === '/ar' || p.startsWith('/ar/') || p.endsWith('-ar') ? 'ar' : 'en';
}

export type Vars = Record<string, string | number>;

/*
 * The texts registered so far, by language. The entry registers common and landing below; every other area's
 * module (web/src/app/areas/) registers its catalogues at its top level, so an area's texts are there before any of
 * its components renders (web/src/i18n/catalogue-ownership.test.ts checks that each area imports what it uses).
 */
const registry: Record<Lang, Record<string, string>> = { en: {}, ar: {} };

/** Registers catalogues' en and ar texts (called once at the top level of the module that owns them). */
export function defineMessages(...catalogues: Catalogue[]): void {
  for (const c of catalogues) {
    Object.assign(registry.en, c.en);
    Object.assign(registry.ar, c.ar);
  }
}

defineMessages(...Object.values(entryCatalogues));

export function translate(lang: Lang, key: MessageKey, vars?: Vars): string {
  const template: string = registry[lang][key] ?? registry.en[key] ?? key;
  if (!vars) return template;
  return template.replace(/\{(\w+)\}/g, (m, name: string) => (name in vars ? String(vars[name]) : m));
}

interface LanguageContextValue {
  lang: Lang;
  dir: 'ltr' | 'rtl';
  /** The person's own choice (a language switch, an Arabic page they opened): saved to their account when signed in. */
  setLanguage(lang: Lang): void;
  /**
   * True once the person chose the language in this visit (setLanguage); false while it only came from this browser's
   * memory or the account (adoptLanguage). Signing in then keeps a choice just made and adopts the account's otherwise.
   */
  chosen: boolean;
  /**
   * True when this browser remembered a language from an earlier visit (someone chose it here): the screen keeps it,
   * and signing in neither overrides it with the account's nor saves it to the account.
   */
  remembered: boolean;
  /** The account's language, taken without counting as a choice (on sign-in or page load while signed in). */
  adoptLanguage(lang: Lang): void;
  t(key: MessageKey, vars?: Vars): string;
}

const LanguageContext = createContext<LanguageContextValue | null>(null);

/** `path` is the build's prerender's page (no window there); in the browser the current location is read. */
export function LanguageProvider({ children, path }: { children: ReactNode; path?: string }) {
  const [lang, setLang] = useState<Lang>(() =>
    path === undefined ? detectLanguage(window.location.pathname, readSetting(LANGUAGE_KEY)) : detectLanguage(path, null),
  );
  const [chosen, setChosen] = useState(false);
  const [remembered] = useState(() => {
    if (path !== undefined) return false;
    const saved = readSetting(LANGUAGE_KEY);
    return saved === 'en' || saved === 'ar';
  });
  const setLanguage = useCallback((next: Lang) => {
    writeSetting(LANGUAGE_KEY, next);
    setLang(next);
    setChosen(true);
  }, []);
  const adoptLanguage = useCallback((next: Lang) => {
    writeSetting(LANGUAGE_KEY, next);
    setLang(next);
    setChosen(false);
  }, []);
  const dir = lang === 'ar' ? 'rtl' : 'ltr';
  useEffect(() => {
    document.documentElement.lang = lang;
    document.documentElement.dir = dir;
  }, [lang, dir]);
  const value = useMemo<LanguageContextValue>(
    () => ({ lang, dir, setLanguage, chosen, remembered, adoptLanguage, t: (key, vars) => translate(lang, key, vars) }),
    [lang, dir, setLanguage, chosen, remembered, adoptLanguage],
  );
  return <LanguageContext.Provider value={value}>{children}</LanguageContext.Provider>;
}

export function useLanguage(): LanguageContextValue {
  const ctx = useContext(LanguageContext);
  if (!ctx) throw new Error('useLanguage must be used within a LanguageProvider');
  return ctx;
}

export type Translate = (key: MessageKey, vars?: Vars) => string;

/**
 * For pages whose route fixes the language (`/` and `/ar`, `/investors` and `/investors-ar`): they translate with
 * their own `lang`, not the context's, so the first paint is right while the context catches up in an effect.
 */
export function usePageT(lang: Lang): Translate {
  return useCallback<Translate>((key, vars) => translate(lang, key, vars), [lang]);
}

/** The translate function of the current language. */
export function useT() {
  return useLanguage().t;
}

export type { MessageKey };
