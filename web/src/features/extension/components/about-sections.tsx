import { ArrowRight, CreditCard, KeyRound, ScanSearch, ShieldCheck, SlidersHorizontal, Smartphone, type LucideIcon } from 'lucide-react';
import { Link } from 'wouter';
import { buttonClasses } from '../../../components/ui/button';
import { usePageT, type Lang, type MessageKey } from '../../../i18n';
import { cn } from '../../../lib/cn';
import { SectionHeading } from '../../landing/components/section-heading';
import { CONNECT_PATH } from '../downloads';
import { Steps } from './install-section';

interface Point {
  icon: LucideIcon;
  title: MessageKey;
  body: MessageKey;
}

/** Cards of an icon, a title and a paragraph (the landing's feature cards). */
function PointGrid({ lang, points, className, testId }: { lang: Lang; points: Point[]; className: string; testId: string }) {
  const t = usePageT(lang);
  return (
    <ul className={cn('mt-12 grid gap-6', className)} data-testid={testId}>
      {points.map(({ icon: Icon, title, body }) => (
        <li key={title} className="rounded-2xl border border-slate-200 bg-white p-6 shadow-sm">
          <span className="flex h-12 w-12 items-center justify-center rounded-xl bg-brand-50 text-brand-600">
            <Icon className="h-6 w-6" aria-hidden />
          </span>
          <h3 className="mt-5 text-lg font-semibold text-slate-900">{t(title)}</h3>
          <p className="mt-2 leading-relaxed text-slate-600">{t(body)}</p>
        </li>
      ))}
    </ul>
  );
}

const WHAT: Point[] = [
  { icon: ScanSearch, title: 'extension.what.detect.title', body: 'extension.what.detect.body' },
  { icon: SlidersHorizontal, title: 'extension.what.split.title', body: 'extension.what.split.body' },
  { icon: CreditCard, title: 'extension.what.fill.title', body: 'extension.what.fill.body' },
];

/** What it does: detect, split, fill. */
export function WhatSection({ lang }: { lang: Lang }) {
  const t = usePageT(lang);
  return (
    <section aria-labelledby="extension-what-title" className="scroll-mt-20 bg-white py-16 sm:py-20">
      <div className="mx-auto max-w-7xl px-4 sm:px-6 lg:px-8">
        <SectionHeading
          id="extension-what-title"
          eyebrow={t('extension.what.eyebrow')}
          title={t('extension.what.title')}
          subtitle={t('extension.what.subtitle')}
        />
        <PointGrid lang={lang} points={WHAT} className="md:grid-cols-3" testId="extension-what" />
      </div>
    </section>
  );
}

/** Pairing: the popup's Connect, then approving on bpay; the Connect page is one click from here. */
export function PairSection({ lang }: { lang: Lang }) {
  const t = usePageT(lang);
  const steps: MessageKey[] = ['extension.pair.step1', 'extension.pair.step2', 'extension.pair.step3'];
  return (
    <section id="connect" aria-labelledby="extension-pair-title" className="scroll-mt-20 bg-white py-16 sm:py-20">
      <div className="mx-auto max-w-3xl px-4 sm:px-6 lg:px-8">
        <SectionHeading
          id="extension-pair-title"
          eyebrow={t('extension.pair.eyebrow')}
          title={t('extension.pair.title')}
          subtitle={t('extension.pair.subtitle')}
        />
        <div className="mt-12">
          <Steps testId="extension-pair-steps" steps={steps.map((key) => ({ body: t(key) }))} />
        </div>
        <p className="mt-6 text-center text-sm text-slate-600">{t('extension.pair.manage')}</p>
        <div className="mt-6 flex justify-center">
          <Link href={CONNECT_PATH} className={buttonClasses('outline', 'lg', 'w-full sm:w-auto')}>
            {t('extension.pair.cta')}
            <ArrowRight className="h-5 w-5 rtl:rotate-180" aria-hidden />
          </Link>
        </div>
      </div>
    </section>
  );
}

const PRIVACY: Point[] = [
  { icon: Smartphone, title: 'extension.privacy.local.title', body: 'extension.privacy.local.body' },
  { icon: CreditCard, title: 'extension.privacy.card.title', body: 'extension.privacy.card.body' },
  { icon: KeyRound, title: 'extension.privacy.token.title', body: 'extension.privacy.token.body' },
  { icon: ShieldCheck, title: 'extension.privacy.permissions.title', body: 'extension.privacy.permissions.body' },
];

/** What data it touches: local detection, no stored card numbers, a revocable scoped key, its permissions. */
export function PrivacySection({ lang }: { lang: Lang }) {
  const t = usePageT(lang);
  return (
    <section id="privacy" aria-labelledby="extension-privacy-title" className="scroll-mt-20 bg-slate-50 py-16 sm:py-20">
      <div className="mx-auto max-w-7xl px-4 sm:px-6 lg:px-8">
        <SectionHeading
          id="extension-privacy-title"
          eyebrow={t('extension.privacy.eyebrow')}
          title={t('extension.privacy.title')}
          subtitle={t('extension.privacy.subtitle')}
        />
        <PointGrid lang={lang} points={PRIVACY} className="sm:grid-cols-2" testId="extension-privacy" />
      </div>
    </section>
  );
}
