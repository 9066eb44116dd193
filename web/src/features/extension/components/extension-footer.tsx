import { Link } from 'wouter';
import { usePageT, type Lang, type MessageKey } from '../../../i18n';
import { Logo } from '../../landing/components/logo';

const LEGAL: Array<{ label: MessageKey; href: string }> = [
  { label: 'extension.footer.terms', href: '/terms-conditions' },
  { label: 'extension.footer.privacy', href: '/privacy-policy' },
  { label: 'extension.footer.disclaimers', href: '/legal-disclaimers' },
];

export function ExtensionFooter({ lang }: { lang: Lang }) {
  const t = usePageT(lang);
  return (
    <footer className="bg-slate-950 text-slate-300">
      <div className="mx-auto max-w-7xl px-4 py-12 sm:px-6 lg:px-8">
        <div className="flex flex-col gap-10 md:flex-row md:items-start md:justify-between">
          <div className="max-w-md">
            <Logo name={t('common.brand')} inverted />
            <p className="mt-4 text-sm leading-relaxed text-slate-300">{t('extension.footer.tagline')}</p>
          </div>
          <nav aria-labelledby="extension-footer-legal">
            <h2 id="extension-footer-legal" className="text-sm font-semibold uppercase tracking-wider text-white">
              {t('extension.footer.legal')}
            </h2>
            <ul className="mt-4 space-y-3">
              {LEGAL.map((l) => (
                <li key={l.href}>
                  <Link href={l.href} className="text-sm text-slate-300 transition-colors hover:text-white">
                    {t(l.label)}
                  </Link>
                </li>
              ))}
            </ul>
          </nav>
        </div>
        <p className="mt-12 border-t border-white/10 pt-6 text-sm text-slate-400">{t('extension.footer.copyright')}</p>
      </div>
    </footer>
  );
}
