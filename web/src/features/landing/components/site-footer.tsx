import { Mail, MapPin, Phone } from 'lucide-react';
import type { ReactNode } from 'react';
import { Link } from 'wouter';
import type { Lang, MessageKey } from '../../../i18n';
import { usePageT } from '../../../i18n';
import { Logo } from '../../../components/public-page/logo';

interface FooterLink {
  label: MessageKey;
  href: string;
  kind: 'anchor' | 'route' | 'external';
}

const linkClass = 'text-sm text-slate-400 transition-colors hover:text-white';

function FooterLinkItem({ link, lang }: { link: FooterLink; lang: Lang }) {
  const t = usePageT(lang);
  return (
    <li>
      {link.kind === 'route' ? (
        <Link href={link.href} className={linkClass}>
          {t(link.label)}
        </Link>
      ) : (
        <a href={link.href} className={linkClass}>
          {t(link.label)}
        </a>
      )}
    </li>
  );
}

function Column({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <div>
      <h2 id={id} className="text-sm font-semibold uppercase tracking-wider text-white">
        {title}
      </h2>
      {children}
    </div>
  );
}

export function SiteFooter({ lang }: { lang: Lang }) {
  const t = usePageT(lang);
  const email = t('landing.footer.email');
  const phone = t('landing.footer.phone');
  const enterpriseHref = `mailto:${email}?subject=${encodeURIComponent(t('landing.footer.enterpriseSubject'))}`;

  const product: FooterLink[] = [
    { label: 'landing.footer.howItWorks', href: '#how-it-works', kind: 'anchor' },
    { label: 'landing.footer.features', href: '#features', kind: 'anchor' },
    { label: 'landing.footer.pricing', href: '#pricing', kind: 'anchor' },
    { label: 'landing.footer.merchantDemo', href: '/addon-checkout-demo', kind: 'route' },
    { label: 'landing.footer.paymentDemo', href: '/payment-demo', kind: 'route' },
  ];
  const company: FooterLink[] = [
    { label: 'landing.footer.investors', href: lang === 'ar' ? '/investors-ar' : '/investors', kind: 'route' },
    { label: 'landing.footer.customerDemo', href: '/banner-checkout-demo', kind: 'route' },
    { label: 'landing.footer.enterprise', href: enterpriseHref, kind: 'external' },
  ];
  const legal: FooterLink[] = [
    { label: 'landing.footer.terms', href: '/terms-conditions', kind: 'route' },
    { label: 'landing.footer.privacy', href: '/privacy-policy', kind: 'route' },
    { label: 'landing.footer.disclaimers', href: '/legal-disclaimers', kind: 'route' },
  ];
  const columns: Array<{ id: string; title: MessageKey; links: FooterLink[] }> = [
    { id: 'footer-product', title: 'landing.footer.product', links: product },
    { id: 'footer-company', title: 'landing.footer.company', links: company },
    { id: 'footer-legal', title: 'landing.footer.legal', links: legal },
  ];

  return (
    <footer className="bg-slate-950 text-slate-300">
      <div className="mx-auto max-w-7xl px-4 py-16 sm:px-6 lg:px-8">
        <div className="grid gap-12 lg:grid-cols-[1.4fr_repeat(4,1fr)]">
          <div className="max-w-sm">
            <Logo name={t('common.brand')} inverted />
            <p className="mt-4 text-sm leading-relaxed text-slate-400">{t('landing.footer.tagline')}</p>
            <p className="mt-4 text-xs leading-relaxed text-slate-400">{t('landing.footer.disclosure')}</p>
          </div>

          <div className="grid grid-cols-2 gap-10 sm:grid-cols-4 lg:col-span-4">
            {columns.map((c) => (
              <Column key={c.id} id={c.id} title={t(c.title)}>
                <nav aria-labelledby={c.id}>
                  <ul className="mt-4 space-y-3">
                    {c.links.map((l) => (
                      <FooterLinkItem key={l.label} link={l} lang={lang} />
                    ))}
                  </ul>
                </nav>
              </Column>
            ))}
            <Column id="footer-contact" title={t('landing.footer.contact')}>
              <address className="mt-4 space-y-3 text-sm not-italic">
                <p className="flex items-start gap-2">
                  <Mail className="mt-0.5 h-4 w-4 shrink-0 text-slate-500" aria-hidden />
                  <span className="sr-only">{t('landing.footer.emailLabel')}: </span>
                  <a href={`mailto:${email}`} className="break-all text-slate-400 hover:text-white" dir="ltr">
                    {email}
                  </a>
                </p>
                <p className="flex items-start gap-2">
                  <Phone className="mt-0.5 h-4 w-4 shrink-0 text-slate-500" aria-hidden />
                  <span className="sr-only">{t('landing.footer.phoneLabel')}: </span>
                  <a href={`tel:${phone.replace(/[^+\d]/g, '')}`} className="text-slate-400 hover:text-white" dir="ltr">
                    {phone}
                  </a>
                </p>
                <p className="flex items-start gap-2 text-slate-400">
                  <MapPin className="mt-0.5 h-4 w-4 shrink-0 text-slate-500" aria-hidden />
                  <span className="sr-only">{t('landing.footer.locationLabel')}: </span>
                  {t('landing.footer.location')}
                </p>
              </address>
            </Column>
          </div>
        </div>

        <div className="mt-12 border-t border-slate-800 pt-8 text-sm text-slate-400">
          <p>{t('landing.footer.copyright')}</p>
        </div>
      </div>
    </footer>
  );
}
