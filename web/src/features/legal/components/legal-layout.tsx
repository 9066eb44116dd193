import { ArrowLeft, FileText, Languages } from 'lucide-react';
import { useEffect } from 'react';
import { Link } from 'wouter';
import { Button, buttonClasses } from '../../../components/ui/button';
import { useLanguage } from '../../../i18n';
import { cn } from '../../../lib/cn';
import { useDocumentTitle } from '../../../lib/document-title';
import { useHydrated } from '../../../lib/use-hydrated';
import { LEGAL_DOCUMENTS, type LegalDocument } from '../documents';

/**
 * The text before and after a `{name}` placeholder, so an element (a link, a <time>) can sit inside a sentence in
 * either language's word order. A template read without vars keeps its placeholders.
 */
function around(template: string, name: string): [string, string] {
  const at = template.indexOf(`{${name}}`);
  if (at < 0) return [template, ''];
  return [template.slice(0, at), template.slice(at + name.length + 2)];
}

/** Toggles the context language in place: the legal pages have one route for both languages. */
function LanguageToggle() {
  const { lang, setLanguage, t } = useLanguage();
  const target = lang === 'en' ? 'ar' : 'en';
  const hydrated = useHydrated();
  return (
    <Button variant="ghost" size="sm" data-testid="language-switch" disabled={!hydrated} title={t('common.language.label')} onClick={() => setLanguage(target)}>
      <Languages className="h-4 w-4" aria-hidden />
      <span lang={target}>{t('common.language.switch')}</span>
    </Button>
  );
}

/** The page shared by the three legal documents: header with Back to Home, h1, last-updated date, numbered h2 sections. */
export function LegalLayout({ doc }: { doc: LegalDocument }) {
  const { lang, dir, t } = useLanguage();
  const email = t('legal.email');
  const [contactBefore, contactAfter] = around(t('legal.contact'), 'email');
  const [updatedBefore, updatedAfter] = around(t('legal.lastUpdated'), 'date');

  // Client-side navigation keeps the scroll position; a document should open at its top.
  useEffect(() => {
    window.scrollTo({ top: 0, behavior: 'instant' });
  }, [doc.path]);

  useDocumentTitle(t('legal.meta.title', { title: t(doc.title) }));

  return (
    <div dir={dir} lang={lang} className="min-h-screen bg-slate-50 text-slate-900">
      <header className="sticky top-0 z-30 border-b border-slate-200 bg-white/90 backdrop-blur">
        <div className="mx-auto flex h-16 max-w-4xl items-center justify-between gap-4 px-4 sm:px-6">
          <Link href="/" className={buttonClasses('ghost', 'sm', '-ms-3')}>
            <ArrowLeft className="h-4 w-4 rtl:rotate-180" aria-hidden />
            {t('common.backHome')}
          </Link>
          <div className="flex items-center gap-3">
            <span className="text-lg font-bold tracking-tight text-brand-600" dir="ltr">
              {t('common.brand')}
            </span>
            <LanguageToggle />
          </div>
        </div>
      </header>

      <main className="mx-auto max-w-4xl px-4 py-12 sm:px-6 sm:py-16">
        <article className="rounded-2xl border border-slate-200 bg-white p-6 shadow-sm sm:p-10">
          <header className="border-b border-slate-100 pb-8">
            <p className="flex items-center gap-2 text-sm font-semibold uppercase tracking-wider text-brand-600">
              <FileText className="h-4 w-4" aria-hidden />
              {t('legal.eyebrow')}
            </p>
            <h1 className="mt-3 text-3xl font-bold tracking-tight sm:text-4xl">{t(doc.title)}</h1>
            <p className="mt-3 text-sm text-slate-500">
              {updatedBefore}
              <time dateTime={doc.updated}>{t('legal.lastUpdatedDate')}</time>
              {updatedAfter}
            </p>
            <p className="mt-4 leading-relaxed text-slate-600">{t(doc.summary)}</p>
          </header>

          <nav aria-labelledby="legal-toc" className="mt-8 rounded-xl bg-slate-50 p-5">
            <h2 id="legal-toc" className="text-sm font-semibold text-slate-900">
              {t('legal.toc')}
            </h2>
            <ol className="mt-3 grid gap-x-6 gap-y-2 text-sm sm:grid-cols-2">
              {doc.sections.map((s, i) => (
                <li key={s.id}>
                  <a href={`#${s.id}`} className="text-brand-700 hover:underline">
                    {i + 1}. {t(s.title)}
                  </a>
                </li>
              ))}
            </ol>
          </nav>

          <div className="mt-10 space-y-10">
            {doc.sections.map((s, i) => (
              <section key={s.id} id={s.id} aria-labelledby={`${s.id}-title`} className="scroll-mt-24">
                <h2 id={`${s.id}-title`} className="text-xl font-semibold text-slate-900">
                  <span className="text-brand-600">{i + 1}.</span> {t(s.title)}
                </h2>
                <div className="mt-3 space-y-3 leading-relaxed text-slate-700">
                  {s.paragraphs.map((p) => (
                    <p key={p}>{t(p)}</p>
                  ))}
                </div>
              </section>
            ))}
          </div>

          <p className="mt-12 rounded-xl border border-brand-100 bg-brand-50 p-5 text-sm text-slate-700">
            {contactBefore}
            <a href={`mailto:${email}`} className="font-medium text-brand-700 underline-offset-4 hover:underline" dir="ltr">
              {email}
            </a>
            {contactAfter}
          </p>
        </article>
      </main>

      <footer className="border-t border-slate-200 bg-white">
        <div className="mx-auto flex max-w-4xl flex-col gap-4 px-4 py-8 text-sm sm:flex-row sm:items-center sm:justify-between sm:px-6">
          <nav aria-label={t('legal.documents')}>
            <ul className="flex flex-wrap gap-x-6 gap-y-2">
              {LEGAL_DOCUMENTS.map((d) => (
                <li key={d.path}>
                  <Link
                    href={d.path}
                    aria-current={d.path === doc.path ? 'page' : undefined}
                    className={cn('hover:text-brand-700', d.path === doc.path ? 'font-semibold text-brand-700' : 'text-slate-600')}
                  >
                    {t(d.title)}
                  </Link>
                </li>
              ))}
            </ul>
          </nav>
          <p className="text-slate-500">{t('legal.copyright')}</p>
        </div>
      </footer>
    </div>
  );
}
