import { ArrowLeft, FlaskConical, Lock, Store } from 'lucide-react';
import type { ReactNode, Ref } from 'react';
import { Link } from 'wouter';
import { Badge } from '../../../components/ui/badge';
import { useLanguage, type MessageKey } from '../../../i18n';
import { DEMO_ORDER, TOTAL_STEPS, type Phase } from '../flow';
import type { CheckoutDemo } from '../hooks/use-checkout-demo';

/** bpay's mark: a square with the first letter and the name, always left to right. */
export function BpayMark({ small = false }: { small?: boolean }) {
  const { t } = useLanguage();
  return (
    <span className="flex items-center gap-2" dir="ltr">
      <span
        aria-hidden
        className={`flex items-center justify-center rounded-lg bg-linear-to-br from-brand-500 to-brand-700 font-bold text-white ${small ? 'h-6 w-6 text-sm' : 'h-8 w-8 text-lg'}`}
      >
        b
      </span>
      <span className={`font-bold tracking-tight text-slate-900 ${small ? 'text-base' : 'text-xl'}`}>{t('common.brand')}</span>
    </span>
  );
}

/** "Step 3/5": the digits stay left to right in Arabic. */
export function StepBadge({ step }: { step: number }) {
  const { t } = useLanguage();
  return (
    <Badge tone="brand" data-testid="demo-step" data-step={step}>
      {t('demos.step')}&nbsp;
      <span dir="ltr">
        {step}/{TOTAL_STEPS}
      </span>
    </Badge>
  );
}

/** Whether this run is a sandbox payment or a simulation, said plainly at the top of the page. */
function ModeNotice({ demo, path }: { demo: CheckoutDemo; path: string }) {
  const { t } = useLanguage();
  if (demo.modeLoading) return null;
  if (demo.mode === 'sandbox') {
    return (
      <p className="flex items-start gap-2 rounded-lg border border-yellow-200 bg-yellow-50 px-4 py-3 text-sm text-yellow-900" data-testid="demo-mode-notice" data-mode="sandbox">
        <FlaskConical className="mt-0.5 h-4 w-4 shrink-0" aria-hidden />
        <span>{t('demos.notice.sandbox')}</span>
      </p>
    );
  }
  return (
    <div className="flex items-start gap-2 rounded-lg border border-slate-200 bg-slate-100 px-4 py-3 text-sm text-slate-700" data-testid="demo-mode-notice" data-mode="sample">
      <FlaskConical className="mt-0.5 h-4 w-4 shrink-0" aria-hidden />
      <div className="flex min-w-0 flex-1 flex-wrap items-baseline justify-between gap-x-4 gap-y-1">
        <p>{demo.signedIn ? t('demos.notice.demoMode') : t('demos.notice.sample')}</p>
        {!demo.signedIn && (
          <Link href={`/auth?next=${encodeURIComponent(path)}`} className="font-medium text-brand-700 underline-offset-4 hover:underline">
            {t('demos.notice.signIn')}
          </Link>
        )}
      </div>
    </div>
  );
}

/** The demo page: a thin bpay bar with the way back to /, the mode notice, then the merchant's store. */
export function DemoPage({
  title,
  path,
  demo,
  testId,
  banner,
  children,
}: {
  title: string;
  path: string;
  demo: CheckoutDemo;
  testId: string;
  banner?: ReactNode;
  children: ReactNode;
}) {
  const { t } = useLanguage();
  return (
    <div className="min-h-screen bg-slate-50" data-testid={testId}>
      <header className="border-b border-slate-200 bg-white">
        <div className="mx-auto flex h-14 max-w-6xl items-center justify-between gap-3 px-4 sm:px-6">
          <Link href="/" className="flex items-center gap-1.5 rounded-md text-sm font-medium text-slate-600 hover:text-slate-900" data-testid="demo-back-home">
            <ArrowLeft className="h-4 w-4 rtl:rotate-180" aria-hidden />
            {t('common.backHome')}
          </Link>
          <span className="flex min-w-0 items-center gap-2">
            <BpayMark small />
            <span className="truncate text-sm text-slate-500">{title}</span>
          </span>
        </div>
      </header>
      {banner}
      <main className="mx-auto max-w-6xl space-y-4 px-4 py-6 sm:px-6">
        <h1 className="sr-only">{title}</h1>
        <ModeNotice demo={demo} path={path} />
        {children}
      </main>
    </div>
  );
}

/** The store's heading for each step of its checkout. */
export function storeHeading(phase: Phase): MessageKey {
  if (phase.kind === 'merchant') return 'demos.store.paymentHeading';
  if (phase.kind === 'complete') return 'demos.store.completeHeading';
  return 'demos.store.checkoutHeading';
}

/**
 * The merchant's own page: TechStore's header with the step badge, then its content. `headingRef` lets the page move
 * the focus to the store's heading when a step of the store's own begins (its checkout, the filled form, done).
 */
export function StoreFrame({
  step,
  heading,
  headingRef,
  children,
}: {
  step: number;
  heading: string;
  headingRef?: Ref<HTMLHeadingElement>;
  children: ReactNode;
}) {
  const { t } = useLanguage();
  return (
    <section className="overflow-hidden rounded-xl border border-slate-200 bg-white shadow-sm" aria-labelledby="demo-store-heading" data-testid="demo-store">
      <div className="flex flex-wrap items-center justify-between gap-3 border-b border-slate-200 bg-slate-900 px-4 py-3 text-white sm:px-6">
        <span className="flex items-center gap-2">
          <Store className="h-5 w-5 text-brand-500" aria-hidden />
          <span className="text-lg font-bold" dir="ltr">
            {DEMO_ORDER.merchant}
          </span>
          <span className="flex items-center gap-1 text-xs text-slate-300">
            <Lock className="h-3 w-3" aria-hidden />
            {t('demos.store.secure')}
          </span>
        </span>
        <StepBadge step={step} />
      </div>
      <div className="p-4 sm:p-6">
        <h2 id="demo-store-heading" ref={headingRef} tabIndex={-1} className="mb-4 text-xl font-semibold text-slate-900">
          {heading}
        </h2>
        {children}
      </div>
    </section>
  );
}
