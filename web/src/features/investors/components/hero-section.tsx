import { ArrowRight, CalendarDays, FileText, Mail } from 'lucide-react';
import { Link } from 'wouter';
import { buttonClasses } from '../../../components/ui/button';
import type { Lang } from '../../../i18n';
import { usePageT } from '../../../i18n';
import { useInvestorContact } from '../hooks/use-investor-contact';
import { ContactLink } from './contact-link';

/**
 * The opening: the live-platform badge, the one h1 and two actions. English asks for the deck or a meeting;
 * Arabic offers the investor contact and the Customer Demo (spec §2).
 */
export function HeroSection({ lang }: { lang: Lang }) {
  const t = usePageT(lang);
  const contact = useInvestorContact();
  const primary = buttonClasses('primary', 'lg', 'w-full shadow-lg shadow-brand-600/20 sm:w-auto');
  const secondary = buttonClasses('outline', 'lg', 'w-full sm:w-auto');

  return (
    <section aria-labelledby="investors-hero-title" className="relative overflow-hidden bg-linear-to-b from-brand-50 via-white to-white">
      <div aria-hidden className="pointer-events-none absolute inset-x-0 -top-40 mx-auto h-[28rem] max-w-4xl rounded-full bg-brand-100/60 blur-3xl" />
      <div className="relative mx-auto max-w-4xl px-4 pb-16 pt-16 text-center sm:px-6 sm:pt-20 lg:px-8 lg:pb-24 lg:pt-24">
        <p className="text-sm font-semibold uppercase tracking-wider text-brand-700">{t('investors.hero.eyebrow')}</p>
        <p
          data-testid="live-badge"
          className="mt-4 inline-flex items-center gap-2 rounded-full border border-emerald-200 bg-emerald-50 px-3 py-1 text-sm font-medium text-emerald-800"
        >
          <span aria-hidden className="h-2 w-2 animate-pulse rounded-full bg-emerald-500" />
          {t('investors.hero.live')}
        </p>
        <h1 id="investors-hero-title" className="mt-6 text-4xl font-extrabold leading-tight tracking-tight text-slate-900 sm:text-5xl lg:text-6xl">
          {t('investors.hero.title')}
        </h1>
        <p className="mx-auto mt-6 max-w-2xl text-lg leading-relaxed text-slate-600">{t('investors.hero.subtitle')}</p>
        <div className="mt-8 flex flex-col items-center justify-center gap-3 sm:flex-row">
          {lang === 'en' ? (
            <>
              <ContactLink href={contact.mailHref(t('investors.mail.pitchDeckSubject'))} className={primary} testId="pitch-deck-link">
                <FileText className="h-5 w-5" aria-hidden />
                {t('investors.hero.pitchDeck')}
              </ContactLink>
              <ContactLink href={contact.mailHref(t('investors.mail.meetingSubject'))} className={secondary} testId="meeting-link">
                <CalendarDays className="h-5 w-5" aria-hidden />
                {t('investors.hero.meeting')}
              </ContactLink>
            </>
          ) : (
            <>
              <ContactLink href={contact.mailHref(t('investors.mail.contactSubject'))} className={primary} testId="contact-link">
                <Mail className="h-5 w-5" aria-hidden />
                {t('investors.hero.contact')}
              </ContactLink>
              <Link href="/banner-checkout-demo" className={secondary}>
                {t('investors.hero.demo')}
                <ArrowRight className="h-5 w-5 rtl:rotate-180" aria-hidden />
              </Link>
            </>
          )}
        </div>
      </div>
    </section>
  );
}
