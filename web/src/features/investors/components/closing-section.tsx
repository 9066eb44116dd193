import { CalendarDays, FileText, Mail, Phone, type LucideIcon } from 'lucide-react';
import { buttonClasses } from '../../../components/ui/button';
import type { Lang } from '../../../i18n';
import { usePageT } from '../../../i18n';
import { useInvestorContact, type InvestorContact } from '../hooks/use-investor-contact';
import { ContactLink } from './contact-link';
import { Ltr } from './ltr';

/** The value line of a contact card. Its height is fixed, so the card does not move when the answer arrives. */
function ContactValue({ value, contact, lang }: { value: string | undefined; contact: InvestorContact; lang: Lang }) {
  const t = usePageT(lang);
  if (value) return <Ltr className="block break-all text-start text-base font-semibold text-white">{value}</Ltr>;
  if (contact.isError) return <span className="block text-sm text-brand-100">{t('investors.closing.unavailable')}</span>;
  return (
    <span className="flex h-6 items-center">
      <span aria-hidden className="block h-4 w-44 max-w-full animate-pulse rounded bg-white/25" />
      <span className="sr-only">{t('investors.closing.loading')}</span>
    </span>
  );
}

function ContactCard({
  href,
  icon: Icon,
  label,
  value,
  contact,
  lang,
  testId,
}: {
  href: string | undefined;
  icon: LucideIcon;
  label: string;
  value: string | undefined;
  contact: InvestorContact;
  lang: Lang;
  testId: string;
}) {
  return (
    <ContactLink
      href={href}
      testId={testId}
      className="flex min-h-20 items-center gap-4 rounded-2xl bg-white/10 p-4 text-start ring-1 ring-white/20 transition-colors hover:bg-white/15"
    >
      <span className="flex h-11 w-11 shrink-0 items-center justify-center rounded-xl bg-white/15">
        <Icon className="h-5 w-5 text-white" aria-hidden />
      </span>
      <span className="min-w-0 flex-1">
        <span className="block text-sm font-medium text-brand-100">{label}</span>
        <span className="block min-h-6">
          <ContactValue value={value} contact={contact} lang={lang} />
        </span>
      </span>
    </ContactLink>
  );
}

/** The closing call to action: the deck, a meeting, and the investor e-mail and phone from the server's configuration. */
export function ClosingSection({ lang }: { lang: Lang }) {
  const t = usePageT(lang);
  const contact = useInvestorContact();
  return (
    <section id="contact" aria-labelledby="investors-closing-title" className="scroll-mt-20 bg-white px-4 py-16 sm:px-6 sm:py-20 lg:px-8">
      <div className="relative mx-auto max-w-5xl overflow-hidden rounded-3xl bg-linear-to-br from-brand-600 via-brand-700 to-slate-900 px-5 py-12 text-center shadow-2xl sm:px-12 sm:py-16">
        <div aria-hidden className="absolute -end-16 -top-16 h-64 w-64 rounded-full bg-white/10 blur-2xl" />
        <h2 id="investors-closing-title" className="relative text-3xl font-bold tracking-tight text-white sm:text-4xl">
          {t('investors.closing.title')}
        </h2>
        <p className="relative mx-auto mt-4 max-w-xl text-lg text-brand-50">{t('investors.closing.body')}</p>
        <div className="relative mt-8 flex flex-col items-center justify-center gap-3 sm:flex-row">
          <ContactLink
            href={contact.mailHref(t('investors.mail.pitchDeckSubject'))}
            testId="closing-pitch-deck-link"
            className={buttonClasses('outline', 'lg', 'w-full border-transparent bg-white text-brand-700 hover:bg-brand-50 sm:w-auto')}
          >
            <FileText className="h-5 w-5" aria-hidden />
            {t('investors.hero.pitchDeck')}
          </ContactLink>
          <ContactLink
            href={contact.mailHref(t('investors.mail.meetingSubject'))}
            testId="closing-meeting-link"
            className={buttonClasses('ghost', 'lg', 'w-full text-white ring-1 ring-white/40 hover:bg-white/10 sm:w-auto')}
          >
            <CalendarDays className="h-5 w-5" aria-hidden />
            {t('investors.hero.meeting')}
          </ContactLink>
        </div>
        <div className="relative mx-auto mt-10 grid max-w-3xl gap-3 sm:grid-cols-2">
          <ContactCard
            href={contact.mailHref(t('investors.mail.contactSubject'))}
            icon={Mail}
            label={t('investors.closing.emailLabel')}
            value={contact.email}
            contact={contact}
            lang={lang}
            testId="investor-email-link"
          />
          <ContactCard
            href={contact.telHref}
            icon={Phone}
            label={t('investors.closing.phoneLabel')}
            value={contact.phone}
            contact={contact}
            lang={lang}
            testId="investor-phone-link"
          />
        </div>
      </div>
    </section>
  );
}
