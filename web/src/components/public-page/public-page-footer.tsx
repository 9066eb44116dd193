import { Link } from 'wouter';
import { usePageT, type Lang } from '../../i18n';
import type { PublicPageFrame } from './frame';
import { Logo } from './logo';

/** A public page's footer: logo, tagline (and disclosure), the legal pages, copyright. */
export function PublicPageFooter({ lang, frame }: { lang: Lang; frame: PublicPageFrame }) {
  const t = usePageT(lang);
  const { footer } = frame.texts;
  const legal = [
    { label: footer.terms, href: '/terms-conditions' },
    { label: footer.privacy, href: '/privacy-policy' },
    { label: footer.disclaimers, href: '/legal-disclaimers' },
  ];
  const legalId = `${frame.name}-footer-legal`;
  return (
    <footer className="bg-slate-950 text-slate-300">
      <div className="mx-auto max-w-7xl px-4 py-12 sm:px-6 lg:px-8">
        <div className="flex flex-col gap-10 md:flex-row md:items-start md:justify-between">
          <div className="max-w-md">
            <Logo name={t('common.brand')} inverted />
            <p className="mt-4 text-sm leading-relaxed text-slate-300">{t(footer.tagline)}</p>
            {footer.disclosure && <p className="mt-4 text-xs leading-relaxed text-slate-400">{t(footer.disclosure)}</p>}
          </div>
          <nav aria-labelledby={legalId}>
            <h2 id={legalId} className="text-sm font-semibold uppercase tracking-wider text-white">
              {t(footer.legal)}
            </h2>
            <ul className="mt-4 space-y-3">
              {legal.map((l) => (
                <li key={l.href}>
                  <Link href={l.href} className="text-sm text-slate-300 transition-colors hover:text-white">
                    {t(l.label)}
                  </Link>
                </li>
              ))}
            </ul>
          </nav>
        </div>
        <p className="mt-12 border-t border-white/10 pt-6 text-sm text-slate-400">{t(footer.copyright)}</p>
      </div>
    </footer>
  );
}
