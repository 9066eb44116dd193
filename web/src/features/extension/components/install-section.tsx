import { Info } from 'lucide-react';
import type { ReactNode } from 'react';
import { usePageT, type Lang, type MessageKey } from '../../../i18n';
// The landing's section heading, so this page opens its sections as the landing does (it is in the entry already).
import { SectionHeading } from '../../landing/components/section-heading';
import { EXTENSION_FOLDER_NAME, EXTENSION_ZIP_HREF, EXTENSION_ZIP_NAME } from '../downloads';
import { Code, Rich, UiName } from './rich';

/** Numbered steps: an ordered list (screen readers say "1 of 5"), with the number drawn beside each step. */
export function Steps({ steps, testId }: { steps: Array<{ title?: string; body: ReactNode }>; testId: string }) {
  return (
    <ol className="space-y-4" data-testid={testId}>
      {steps.map((step, i) => (
        <li key={i} className="flex gap-4 rounded-2xl border border-slate-200 bg-white p-5 shadow-sm">
          <span aria-hidden className="flex h-9 w-9 shrink-0 items-center justify-center rounded-full bg-brand-600 text-sm font-bold text-white">
            {i + 1}
          </span>
          <div className="min-w-0 pt-1">
            {step.title && <h3 className="font-semibold text-slate-900">{step.title}</h3>}
            <p className={step.title ? 'mt-1 leading-relaxed text-slate-600' : 'leading-relaxed text-slate-700'}>{step.body}</p>
          </div>
        </li>
      ))}
    </ol>
  );
}

const STEP_KEYS: Array<[title: MessageKey, body: MessageKey]> = [
  ['extension.install.step1.title', 'extension.install.step1.body'],
  ['extension.install.step2.title', 'extension.install.step2.body'],
  ['extension.install.step3.title', 'extension.install.step3.body'],
  ['extension.install.step4.title', 'extension.install.step4.body'],
  ['extension.install.step5.title', 'extension.install.step5.body'],
];

/** Installing the unpacked extension in a Chromium browser, then Firefox's temporary add-on. */
export function InstallSection({ lang }: { lang: Lang }) {
  const t = usePageT(lang);
  const values = {
    file: (
      <a href={EXTENSION_ZIP_HREF} download={EXTENSION_ZIP_NAME} className="font-medium text-brand-700 underline underline-offset-4">
        <Code>{EXTENSION_ZIP_NAME}</Code>
      </a>
    ),
    chrome: <Code>chrome://extensions</Code>,
    edge: <Code>edge://extensions</Code>,
    brave: <Code>brave://extensions</Code>,
    folder: <Code>{EXTENSION_FOLDER_NAME}</Code>,
    manifest: <Code>manifest.json</Code>,
    about: <Code>about:debugging</Code>,
    devMode: <UiName>{t('extension.install.ui.devMode')}</UiName>,
    loadUnpacked: <UiName>{t('extension.install.ui.loadUnpacked')}</UiName>,
    thisFirefox: <UiName>{t('extension.install.ui.thisFirefox')}</UiName>,
    loadTemporary: <UiName>{t('extension.install.ui.loadTemporary')}</UiName>,
  };
  return (
    <section id="install" aria-labelledby="extension-install-title" className="scroll-mt-20 bg-slate-50 py-16 sm:py-20">
      <div className="mx-auto max-w-3xl px-4 sm:px-6 lg:px-8">
        <SectionHeading
          id="extension-install-title"
          eyebrow={t('extension.install.eyebrow')}
          title={t('extension.install.title')}
          subtitle={t('extension.install.subtitle')}
        />
        <div className="mt-12">
          <Steps
            testId="extension-install-steps"
            steps={STEP_KEYS.map(([title, body]) => ({ title: t(title), body: <Rich text={t(body)} values={values} /> }))}
          />
        </div>
        <aside
          aria-labelledby="extension-firefox-title"
          className="mt-8 flex gap-3 rounded-2xl border border-amber-200 bg-amber-50 p-5 text-amber-950"
          data-testid="extension-firefox-note"
        >
          <Info className="mt-0.5 h-5 w-5 shrink-0 text-amber-600" aria-hidden />
          <div className="min-w-0">
            <h3 id="extension-firefox-title" className="font-semibold">
              {t('extension.install.firefox.title')}
            </h3>
            <p className="mt-1 leading-relaxed">
              <Rich text={t('extension.install.firefox.body')} values={values} />
            </p>
          </div>
        </aside>
      </div>
    </section>
  );
}
